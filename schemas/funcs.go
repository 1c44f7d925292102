package schemas

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	"github.com/zclconf/go-cty/cty/gocty"
)

// distType carries a *Dist through HCL evaluation, so that a distribution
// written as a function call arrives at the decoder already checked.
var distType = cty.Capsule("distribution", reflect.TypeOf(Dist{}))

func distVal(d Dist) cty.Value { return cty.CapsuleVal(distType, &d) }

// durationType carries a time.Duration, made by duration("14d"), so that a
// duration added to a time is told apart from a number added to it.
var durationType = cty.Capsule("duration", reflect.TypeOf(time.Duration(0)))

func durationVal(d time.Duration) cty.Value { return cty.CapsuleVal(durationType, &d) }

// Functions is the function table of the lab language: cty's standard
// library, file() relative to the lab directory, and the distributions.
// The functions that make strings are sized (funcsize.go).
// readFile is nil in the runtime, where file() is not available.
func Functions(readFile func(string) ([]byte, error)) map[string]function.Function {
	fns := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"min": stdlib.MinFunc, "max": stdlib.MaxFunc, "coalesce": stdlib.CoalesceFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "element": stdlib.ElementFunc,
		"format": sized(stdlib.FormatFunc, formatWidths), "join": sized(stdlib.JoinFunc, joinSize), "keys": stdlib.KeysFunc,
		"length": lengthFunc, "lookup": stdlib.LookupFunc, "lower": sized(stdlib.LowerFunc, nil),
		"upper": sized(stdlib.UpperFunc, nil), "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc,
		"replace": sized(stdlib.ReplaceFunc, replaceSize), "split": stdlib.SplitFunc, "trimspace": stdlib.TrimSpaceFunc,
		"values": stdlib.ValuesFunc, "jsonencode": sized(stdlib.JSONEncodeFunc, nil), "jsondecode": stdlib.JSONDecodeFunc,
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"regex": stdlib.RegexFunc, "sort": stdlib.SortFunc, "distinct": stdlib.DistinctFunc,
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"sql_string": sized(sqlStringFunc, nil), "seconds_between": secondsBetweenFunc,

		"uniform":     twoNumbers(DistUniform, false),
		"uniform_int": twoNumbers(DistUniformInt, true),
		"normal":      normalFunc(DistNormal),
		"lognormal":   normalFunc(DistLogNormal),
		"exponential": exponentialFunc,
		"weighted":    weightedFunc,
		"sequence":    sequenceFunc,
		"now":         noArgs(DistNow),
		"outcome":     noArgs(DistOutcome),
		"parent":      parentFunc,
		"field":       fieldFunc,
		"duration":    durationFunc,
		"outcome_map": outcomeMapFunc,
	}
	if readFile != nil {
		fns["file"] = function.New(&function.Spec{
			Description: "Reads a file relative to the lab directory.",
			Params:      []function.Parameter{{Name: "path", Type: cty.String}},
			Type:        function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				b, err := readFile(args[0].AsString())
				if err != nil {
					return cty.NilVal, function.NewArgError(0, err)
				}
				return cty.StringVal(string(b)), nil
			},
		})
	}
	return fns
}

// runFunctions is the function table of run-time expressions: RunContext
// evaluates with it and the loader checks their calls against it, so the
// two cannot drift. A run has no lab directory, hence no file().
func runFunctions() map[string]function.Function { return Functions(nil) }

// fileReader reads files below dir only: a lab stays self-contained.
// p, when not nil, is the load's parser: the reads stop when its context
// ends, and count towards MaxReadFileTotal.
func fileReader(dir string, p *Parser) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if p != nil && p.ctx != nil && p.ctx.Err() != nil {
			return nil, fmt.Errorf("the load was interrupted")
		}
		b, err := readLabFile(dir, name)
		if err != nil || p == nil {
			return b, err
		}
		p.fileBytes += len(b)
		if p.fileBytes > MaxReadFileTotal {
			return nil, fmt.Errorf("file() has read more than %s in all in this lab; labgen reads no more, as the copies could exhaust memory", mib(MaxReadFileTotal))
		}
		return b, nil
	}
}

// readLabFile reads the file at name, relative to the lab directory dir,
// refusing what could leak, hang or exhaust memory: a path that leads out
// of the directory, also through a symbolic link (a private key linked
// as a job's SQL would land in lab.json); anything but a regular file (a
// FIFO blocks until a writer comes, a device never ends); a file larger
// than MaxReadFileBytes.
func readLabFile(dir, name string) ([]byte, error) {
	if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
		return nil, fmt.Errorf("file %q is outside the lab directory; name a path relative to it", name)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return nil, err
	}
	path, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("no file %q in the lab directory", name)
	}
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(root, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("file %q leads through a symbolic link to %s, outside the lab directory; file() reads only the lab's own files", name, path)
	}
	// Stat before opening: opening a FIFO blocks until a writer comes.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("file %q is %s, not a regular file; file() reads only regular files", name, fileKind(st.Mode()))
	}
	if st.Size() > MaxReadFileBytes {
		return nil, fmt.Errorf("file %q is larger than %s, the most file() reads", name, mib(MaxReadFileBytes))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size may have grown since the stat: read no more than allowed.
	b, err := io.ReadAll(io.LimitReader(f, MaxReadFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxReadFileBytes {
		return nil, fmt.Errorf("file %q is larger than %s, the most file() reads", name, mib(MaxReadFileBytes))
	}
	return b, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// number reads a number, or a duration string such as "45s" as seconds, so
// that delays can be written the way people say them.
func number(v cty.Value) (float64, error) {
	if v.IsNull() {
		return 0, fmt.Errorf("a number is required, not null")
	}
	if !v.IsKnown() {
		return 0, fmt.Errorf("the value is not known")
	}
	if v.Type() == durationType {
		return v.EncapsulatedValue().(*time.Duration).Seconds(), nil
	}
	if v.Type() == cty.String {
		d, err := parseLongDuration(v.AsString())
		if err != nil {
			return 0, fmt.Errorf("%q is neither a number nor a duration such as \"45s\" or \"14d\"", v.AsString())
		}
		return d.Seconds(), nil
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, fmt.Errorf("a number or a duration is required")
	}
	f, _ := n.AsBigFloat().Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("the number must be finite")
	}
	return f, nil
}

var anyParam = func(name string) function.Parameter {
	return function.Parameter{Name: name, Type: cty.DynamicPseudoType}
}

func twoNumbers(kind string, integer bool) function.Function {
	return function.New(&function.Spec{
		Description: "A uniform distribution between min and max (inclusive).",
		Params:      []function.Parameter{anyParam("min"), anyParam("max")},
		Type:        function.StaticReturnType(distType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			lo, err := number(args[0])
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			hi, err := number(args[1])
			if err != nil {
				return cty.NilVal, function.NewArgError(1, err)
			}
			if lo > hi {
				return cty.NilVal, function.NewArgErrorf(1, "max (%g) is less than min (%g)", hi, lo)
			}
			if integer && (lo != math.Trunc(lo) || hi != math.Trunc(hi)) {
				return cty.NilVal, function.NewArgErrorf(0, "uniform_int takes whole numbers")
			}
			return distVal(Dist{Kind: kind, Min: &lo, Max: &hi}), nil
		},
	})
}

// bounds reads the optional { min = ..., max = ... } argument.
func bounds(d *Dist, opts []cty.Value, at int) error {
	if len(opts) == 0 {
		return nil
	}
	if len(opts) > 1 {
		return function.NewArgErrorf(at+1, "too many arguments; pass the options as one object")
	}
	o := opts[0]
	if o.IsNull() || !(o.Type().IsObjectType() || o.Type().IsMapType()) {
		return function.NewArgErrorf(at, "options must be an object such as { min = 0, max = 100 }")
	}
	for it := o.ElementIterator(); it.Next(); {
		k, v := it.Element()
		f, err := number(v)
		if err != nil {
			return function.NewArgErrorf(at, "option %s: %s", k.AsString(), err)
		}
		switch k.AsString() {
		case "min":
			d.Min = &f
		case "max":
			d.Max = &f
		default:
			return function.NewArgErrorf(at, "unknown option %q; the options are min and max", k.AsString())
		}
	}
	if d.Min != nil && d.Max != nil && *d.Min > *d.Max {
		return function.NewArgErrorf(at, "max (%g) is less than min (%g)", *d.Max, *d.Min)
	}
	return nil
}

func normalFunc(kind string) function.Function {
	a, b := "mean", "stddev"
	if kind == DistLogNormal {
		a, b = "mu", "sigma"
	}
	return function.New(&function.Spec{
		Description: fmt.Sprintf("A %s distribution, optionally clamped by { min, max }.", kind),
		Params:      []function.Parameter{anyParam(a), anyParam(b)},
		VarParam:    &function.Parameter{Name: "options", Type: cty.DynamicPseudoType},
		Type:        function.StaticReturnType(distType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			x, err := number(args[0])
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			s, err := number(args[1])
			if err != nil {
				return cty.NilVal, function.NewArgError(1, err)
			}
			if s < 0 {
				return cty.NilVal, function.NewArgErrorf(1, "%s must not be negative", b)
			}
			d := Dist{Kind: kind}
			if kind == DistLogNormal {
				d.Mu, d.Sigma = x, s
			} else {
				d.Mean, d.Stddev = x, s
			}
			if err := bounds(&d, args[2:], 2); err != nil {
				return cty.NilVal, err
			}
			return distVal(d), nil
		},
	})
}

var exponentialFunc = function.New(&function.Spec{
	Description: "An exponential distribution with the given mean (a number or a duration), optionally clamped by { min, max }.",
	Params:      []function.Parameter{anyParam("mean")},
	VarParam:    &function.Parameter{Name: "options", Type: cty.DynamicPseudoType},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		m, err := number(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		if m <= 0 {
			return cty.NilVal, function.NewArgErrorf(0, "the mean must be positive, not %g", m)
		}
		d := Dist{Kind: DistExponential, Mean: m}
		if err := bounds(&d, args[1:], 1); err != nil {
			return cty.NilVal, err
		}
		return distVal(d), nil
	},
})

var weightedFunc = function.New(&function.Spec{
	Description: "A choice among values with relative weights, as in weighted({ PAID = 80, FAILED = 20 }).",
	Params:      []function.Parameter{anyParam("weights")},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		w := args[0]
		if w.IsNull() || !(w.Type().IsObjectType() || w.Type().IsMapType()) {
			return cty.NilVal, function.NewArgErrorf(0, "weights must be an object of value = weight, as in { PAID = 80, FAILED = 20 }")
		}
		d := Dist{Kind: DistWeighted}
		total := 0.0
		for it := w.ElementIterator(); it.Next(); {
			k, v := it.Element()
			f, err := number(v)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "weight of %q: %s", k.AsString(), err)
			}
			if f < 0 {
				return cty.NilVal, function.NewArgErrorf(0, "weight of %q is negative (%g); weights must be zero or more", k.AsString(), f)
			}
			total += f
			d.Choices = append(d.Choices, Choice{Value: k.AsString(), Weight: f})
		}
		if len(d.Choices) == 0 || total == 0 {
			return cty.NilVal, function.NewArgErrorf(0, "at least one weight must be positive")
		}
		sort.Slice(d.Choices, func(i, j int) bool { return d.Choices[i].Value < d.Choices[j].Value })
		return distVal(d), nil
	},
})

var sequenceFunc = function.New(&function.Spec{
	Description: "Consecutive whole numbers: sequence(start) or sequence(start, step).",
	VarParam:    &function.Parameter{Name: "start_step", Type: cty.Number},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		d := Dist{Kind: DistSequence, Start: 1, Step: 1}
		if len(args) > 2 {
			return cty.NilVal, function.NewArgErrorf(2, "sequence takes a start and a step, no more")
		}
		for i, a := range args {
			var n int64
			if err := gocty.FromCtyValue(a, &n); err != nil {
				return cty.NilVal, function.NewArgErrorf(i, "a whole number is required")
			}
			if i == 0 {
				d.Start = n
			} else {
				if n <= 0 {
					return cty.NilVal, function.NewArgErrorf(i, "the step must be positive")
				}
				d.Step = n
			}
		}
		return distVal(d), nil
	},
})

func noArgs(kind string) function.Function {
	return function.New(&function.Spec{
		Description: kind,
		Type:        function.StaticReturnType(distType),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return distVal(Dist{Kind: kind}), nil
		},
	})
}

var parentFunc = function.New(&function.Spec{
	Description: "The value of a field of the row a follow-up belongs to.",
	Params:      []function.Parameter{{Name: "field", Type: cty.String}},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return distVal(Dist{Kind: DistParent, Field: args[0].AsString()}), nil
	},
})

var fieldFunc = function.New(&function.Spec{
	Description: "The value of another field of the same row, declared above this one.",
	Params:      []function.Parameter{{Name: "field", Type: cty.String}},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return distVal(Dist{Kind: DistField, Field: args[0].AsString()}), nil
	},
})

var durationFunc = function.New(&function.Spec{
	Description: "A duration such as \"14d\", \"1h30m\" or \"2w\", to add to a time: now() + duration(\"14d\").",
	Params:      []function.Parameter{{Name: "text", Type: cty.String}},
	Type:        function.StaticReturnType(durationType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		d, err := parseLongDuration(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return durationVal(d), nil
	},
})

// parseLongDuration reads a duration as Go writes it ("1h30m", "45s",
// "-10m"), with the units d (24 hours) and w (7 days) besides: "14d",
// "2w3d12h".
func parseLongDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	rest, neg := in, false
	if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	if rest == "0" {
		return 0, nil
	}
	if rest == "" {
		return 0, fmt.Errorf("%q is not a duration such as \"14d\" or \"1h30m\"", s)
	}
	var total time.Duration
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		j := i
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		if num == "" {
			return 0, fmt.Errorf("%q is not a duration such as \"14d\" or \"1h30m\"", s)
		}
		var per time.Duration
		switch unit {
		case "w":
			per = 7 * 24 * time.Hour
		case "d":
			per = 24 * time.Hour
		case "h", "m", "s", "ms", "us", "µs", "ns":
			d, err := time.ParseDuration(num + unit)
			if err != nil {
				return 0, fmt.Errorf("%q is not a duration such as \"14d\" or \"1h30m\"", s)
			}
			total += d
			if total > math.MaxInt64/2 {
				return 0, fmt.Errorf("%q is too long a duration", s)
			}
			continue
		case "":
			return 0, fmt.Errorf("%q has a number without a unit; the units are w, d, h, m, s, ms, us and ns", s)
		default:
			return 0, fmt.Errorf("%q has the unknown unit %q; the units are w, d, h, m, s, ms, us and ns", s, unit)
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"14d\" or \"1h30m\"", s)
		}
		if f*float64(per) > float64(math.MaxInt64/2) {
			return 0, fmt.Errorf("%q is too long a duration", s)
		}
		total += time.Duration(math.Round(f * float64(per)))
		if total > math.MaxInt64/2 {
			return 0, fmt.Errorf("%q is too long a duration", s)
		}
	}
	if neg {
		total = -total
	}
	return total, nil
}

var outcomeMapFunc = function.New(&function.Spec{
	Description: "A value chosen by the follow-up's outcome, as in outcome_map({ PAID = \"PAID\", FAILED = \"CANCELLED\" }).",
	Params:      []function.Parameter{anyParam("map")},
	Type:        function.StaticReturnType(distType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		m := args[0]
		if m.IsNull() || !(m.Type().IsObjectType() || m.Type().IsMapType()) {
			return cty.NilVal, function.NewArgErrorf(0, "outcome_map takes an object of outcome = value")
		}
		d := Dist{Kind: DistOutcomeMap}
		for it := m.ElementIterator(); it.Next(); {
			k, v := it.Element()
			if v.Type() == distType && !v.IsNull() {
				x := *v.EncapsulatedValue().(*Dist)
				if x.Kind != DistNow && x.Kind != DistParent && !delayKinds[x.Kind] {
					return cty.NilVal, function.NewArgErrorf(0, "value of %q: only constants, now(), parent() and (for a delay) numeric distributions can be mapped", k.AsString())
				}
				d.Map = append(d.Map, MapEntry{Outcome: k.AsString(), Dist: &x})
				continue
			}
			c, err := constant(v)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "value of %q: %s", k.AsString(), err)
			}
			d.Map = append(d.Map, MapEntry{Outcome: k.AsString(), Value: c})
		}
		sort.Slice(d.Map, func(i, j int) bool { return d.Map[i].Outcome < d.Map[j].Outcome })
		return distVal(d), nil
	},
})

// constant turns a literal into the Go value a constant carries.
func constant(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("the value is not known")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		return jsonNumber(v), nil
	case cty.Bool:
		return v.True(), nil
	}
	return nil, fmt.Errorf("a string, number, bool or null is required, not %s", v.Type().FriendlyName())
}

// TimeLayout is how the runner gives a time to an expression (query
// results, Kafka timestamps, Flink's times; UTC).
const TimeLayout = "2006-01-02 15:04:05.000"

// timeLayouts are the ways a time reaches an expression: TimeLayout, a
// server's own text with or without fractions, and RFC 3339.
var timeLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// secondsBetweenFunc lets a measure or an expectation compare times that
// steps captured, also across engines (a payment's time in MySQL, its
// row's arrival in ClickHouse), to the millisecond.
var secondsBetweenFunc = function.New(&function.Spec{
	Description: "The seconds from one time to another.",
	Params:      []function.Parameter{{Name: "from", Type: cty.String}, {Name: "to", Type: cty.String}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var ts [2]time.Time
		for i, a := range args {
			t, ok := parseTime(a.AsString())
			if !ok {
				return cty.NilVal, function.NewArgErrorf(i, "%q is not a time such as %q", a.AsString(), TimeLayout)
			}
			ts[i] = t
		}
		return cty.NumberFloatVal(float64(ts[1].Sub(ts[0]).Milliseconds()) / 1000), nil
	},
})

// sqlStringFunc quotes a value as an SQL string literal, so a captured
// value can go into step SQL safely: WHERE category = ${sql_string(step.latest.category)}.
// Quotes are doubled and backslashes too (MySQL and ClickHouse read a
// backslash as an escape); null becomes NULL.
var sqlStringFunc = function.New(&function.Spec{
	Description: "Quotes a value as an SQL string literal ('it''s'); null becomes NULL.",
	Params:      []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if v.IsNull() {
			return cty.StringVal("NULL"), nil
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "a string, number or bool is required")
		}
		q := strings.NewReplacer(`\`, `\\`, "'", "''").Replace(s.AsString())
		return cty.StringVal("'" + q + "'"), nil
	},
})

// lengthFunc is cty's length, which also counts an object's attributes
// and a string's characters. A capture such as { for r in result.rows :
// r.genre => r.n } is an object, not a map: cty's length refused it, and
// an expectation on data that was right read "not held".
var lengthFunc = function.New(&function.Spec{
	Description: "The number of elements of a list, tuple, set, map or object, or of characters of a string.",
	Params:      []function.Parameter{{Name: "collection", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowMarked: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		switch ty := args[0].Type(); {
		case ty.IsObjectType(), ty == cty.String, ty == cty.DynamicPseudoType:
			return cty.Number, nil
		default:
			return stdlib.LengthFunc.ReturnType([]cty.Type{ty})
		}
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		switch ty := v.Type(); {
		case ty.IsObjectType():
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))), nil
		case ty == cty.String:
			return stdlib.StrlenFunc.Call([]cty.Value{v})
		}
		return stdlib.LengthFunc.Call([]cty.Value{v})
	},
})
