package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The loader's bounds on what it reads and evaluates. Without them a
// hostile or mistaken lab crashed labgen with a Go runtime error (stack
// overflow, out of memory) instead of a diagnostic; each is far above
// what a lab needs, and each is documented in the language reference
// ("limits").
const (
	// MaxHCLFileBytes is the largest .hcl file (or -var-file) the loader
	// and fmt parse, and MaxLabBytes the most a lab's .hcl files hold
	// together. HCL keeps every token with its range and cty every
	// element with its type: a file of 4 MiB of short list elements took
	// 1.9 GB and 48 s to validate and 2.6 GB to format, one of 1 MiB a
	// quarter of that. The largest lab file in labs/ is 50 KB, the
	// largest lab 62 KB.
	MaxHCLFileBytes = 1 << 20
	MaxLabBytes     = 2 << 20
	// MaxReadFileBytes is the largest file file() reads: a job's SQL or
	// a JSON document is kilobytes, and 8 MiB still keeps a lab that
	// reads a device or a huge file by mistake well inside memory.
	MaxReadFileBytes = 8 << 20
	// MaxReadFileTotal is how much file() reads in one load in all: a
	// for expression could otherwise read the same large file for each
	// of its elements.
	MaxReadFileTotal = 64 << 20
	// MaxNesting is how deep an expression may nest (see checkNesting):
	// HCL's parser and evaluator recurse once per level, and 100,000
	// levels overflowed the stack.
	MaxNesting = 256
	// MaxForElements is how many elements the for expressions of one
	// load may go through in all (see forStep): cty's range() already
	// stops at 1024 elements, but three nested for expressions over such
	// lists make 10⁹. A lab's own go through a few dozen.
	MaxForElements = 100_000
)

// mib writes a byte count in MiB for messages.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// fileStart is a range at the start of a file, for a diagnostic about
// the whole file.
func fileStart(name string) *hcl.Range {
	return &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}
}

// ReadHCL reads an .hcl file of at most MaxHCLFileBytes. It reads no
// more than that, so that a huge file (or a device) costs no memory.
func ReadHCL(name string) ([]byte, hcl.Diagnostics) { return readHCL(name, "Cannot read file") }

// readHCL is ReadHCL with the summary of a failure to read.
func readHCL(name, cannot string) ([]byte, hcl.Diagnostics) {
	f, err := os.Open(name)
	if err == nil {
		defer f.Close()
		var src []byte
		if src, err = io.ReadAll(io.LimitReader(f, MaxHCLFileBytes+1)); err == nil && len(src) <= MaxHCLFileBytes {
			return src, nil
		}
	}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: cannot, Detail: err.Error()}}
	}
	return nil, hcl.Diagnostics{{
		Severity: hcl.DiagError, Summary: "File too large",
		Detail:  fmt.Sprintf("%s is larger than %s, the most labgen reads of one .hcl file; split it into several files, or read large SQL or data with file().", name, mib(MaxHCLFileBytes)),
		Subject: fileStart(name),
	}}
}

// ParseHCL parses an .hcl file's source once its nesting is known to be
// within MaxNesting (fmt parses before it formats, as the loader does).
func ParseHCL(p *hclparse.Parser, src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	if diags := checkNesting(src, name, true); diags.HasErrors() {
		return nil, diags
	}
	return p.ParseHCL(src, name)
}

// checkNesting scans src's tokens, before anything parses them, for
// nesting deeper than MaxNesting. HCL's parser recurses once for each
// open bracket, brace, parenthesis, quote, heredoc or interpolation, and
// for each unary operator and each ?: it meets inside an expression; its
// evaluator recurses once for each binary operator of a chain (a+b+c is
// ((a+b)+c)) and for each index or call that follows another. So a level
// counts 1, plus 1 for each operator and each closed bracket met in it
// since the last separator: a comma, or a newline where newlines end an
// item (a file's or a block's or an object's body; not inside brackets,
// parentheses or a for expression, where HCL reads on across lines). The
// sum over the open levels bounds every recursion. config tells that src
// is a whole file (whose newlines end attributes), not one expression.
func checkNesting(src []byte, name string, config bool) hcl.Diagnostics {
	var toks hclsyntax.Tokens
	if config {
		toks, _ = hclsyntax.LexConfig(src, name, hcl.InitialPos)
	} else {
		toks, _ = hclsyntax.LexExpression(src, name, hcl.InitialPos)
	}
	type level struct {
		ops      int
		newlines bool // a newline separates items here
	}
	levels := []level{{newlines: config}}
	depth := 1
	for i, t := range toks {
		top := &levels[len(levels)-1]
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOQuote,
			hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			levels = append(levels, level{newlines: t.Type == hclsyntax.TokenOBrace && !forNext(toks[i+1:])})
			depth++
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if len(levels) == 1 {
				continue // unbalanced: the parser says so
			}
			depth -= 1 + top.ops
			levels = levels[:len(levels)-1]
			levels[len(levels)-1].ops++
			depth++
		case hclsyntax.TokenComma:
			depth -= top.ops
			top.ops = 0
		case hclsyntax.TokenNewline, hclsyntax.TokenComment:
			if top.newlines && bytes.HasSuffix(t.Bytes, []byte("\n")) {
				depth -= top.ops
				top.ops = 0
			}
		case hclsyntax.TokenOr, hclsyntax.TokenAnd, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
			hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
			hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenBang, hclsyntax.TokenQuestion:
			top.ops++
			depth++
		}
		if depth > MaxNesting {
			r := t.Range
			return hcl.Diagnostics{{
				Severity: hcl.DiagError, Summary: "Expression nested too deeply",
				Detail: fmt.Sprintf("This is more than %d levels deep: each bracket, brace, parenthesis, string and ${…} that is open counts one, and so does each operator chained in one expression (a + b + c is three deep, as (a + b) + c). "+
					"labgen reads no deeper nesting, which could exhaust its stack; split the expression, or break a long chain with parentheses over separate items.", MaxNesting),
				Subject: &r,
			}}
		}
	}
	return nil
}

// forNext tells whether the brace that toks follow opens a for
// expression ({for k, v in x : …}), inside which HCL reads on across
// newlines.
func forNext(toks hclsyntax.Tokens) bool {
	for _, t := range toks {
		if t.Type != hclsyntax.TokenNewline {
			return t.Type == hclsyntax.TokenIdent && string(t.Bytes) == "for"
		}
	}
	return false
}

// forStep stands between a for expression and its collection: it counts
// the collection's elements before the for expression goes through them,
// against a count the whole load shares, and stops the expression with a
// diagnostic past MaxForElements, or once the load is interrupted. The
// body of a for expression is evaluated once per element, so the
// elements of nested for expressions multiply; counting every
// collection each time it is evaluated bounds that product, and all the
// work of for expressions, soundly.
//
// HCL offers no hook into a for expression, and an hclsyntax.Expression
// cannot be implemented outside hclsyntax; a relative traversal of the
// collection by this step can, as hcl.Traverser is implemented by
// embedding one of hcl's own (for its unexported marker method;
// TraversalStep and SourceRange are forStep's). The step leaves the value
// as it is: an unknown, null or wrong collection is the for expression's
// to report.
type forStep struct {
	hcl.TraverseAttr
	p   *Parser
	rng hcl.Range
}

func (s forStep) SourceRange() hcl.Range { return s.rng }

func (s forStep) TraversalStep(v cty.Value) (cty.Value, hcl.Diagnostics) {
	r := s.rng
	if s.p.ctx != nil && s.p.ctx.Err() != nil {
		return cty.DynamicVal, hcl.Diagnostics{interrupted(&r)}
	}
	u, _ := v.Unmark()
	if !u.IsKnown() || u.IsNull() || !u.CanIterateElements() {
		return v, nil
	}
	s.p.forElements += u.LengthInt()
	if s.p.forElements > MaxForElements {
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: forLimitSummary,
			Detail:  fmt.Sprintf("The lab's for expressions, counting those nested in others once for each element of the outer one, would go through more than %d elements here; labgen stops there, as their results could exhaust memory. Go through fewer elements, or nest fewer for expressions.", MaxForElements),
			Subject: &r,
		}}
	}
	return v, nil
}

// boundFors puts a forStep between every for expression below n and its
// collection.
func boundFors(n hclsyntax.Node, p *Parser) {
	if p == nil {
		p = &Parser{} // a count of its own
	}
	var fors []*hclsyntax.ForExpr
	hclsyntax.VisitAll(n, func(n hclsyntax.Node) hcl.Diagnostics {
		if f, ok := n.(*hclsyntax.ForExpr); ok {
			fors = append(fors, f)
		}
		return nil
	})
	for _, f := range fors {
		r := f.CollExpr.Range()
		f.CollExpr = &hclsyntax.RelativeTraversalExpr{
			Source:    f.CollExpr,
			Traversal: hcl.Traversal{forStep{p: p, rng: r}},
			SrcRange:  r,
		}
	}
}

// stopCalls makes every function of fns fail at once when the load is
// over its for expression limit or interrupted. HCL evaluates a for
// expression's collection before forStep can count it, and goes on with
// the outer elements after an inner one failed: past the limit, three
// nested fors over range(1000) still called range a thousand times,
// building a million numbers (2 s, and minutes for the fuzzer, which
// minimises such an input by running it hundreds of times).
func (p *Parser) stopCalls(fns map[string]function.Function) map[string]function.Function {
	if p == nil {
		return fns
	}
	stopped := func([]cty.Value) error {
		if p.forElements > MaxForElements || p.ctx != nil && p.ctx.Err() != nil {
			return errStopped
		}
		return nil
	}
	out := make(map[string]function.Function, len(fns))
	for name, f := range fns {
		out[name] = guarded(f, stopped, nil)
	}
	return out
}

// errStopped is a call refused by stopCalls; onceEach drops its
// diagnostics, as the limit's or the interrupt's own says why.
var errStopped = errors.New("not called: the load stopped (see the error about for expression elements, or the interrupt)")

// The summaries of the errors of a limit, and of an interrupt.
const (
	forLimitSummary    = "Too many for expression elements"
	interruptedSummary = "Interrupted"
)

// interrupted is the diagnostic of a load stopped by its context.
func interrupted(subject *hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: interruptedSummary, Detail: "The load was interrupted before it finished.", Subject: subject}
}
