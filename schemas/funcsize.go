package schemas

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// MaxStringBytes is the longest string a function may make. Without a
// bound a few nested calls grow a string exponentially: replace() puts
// the replacement at every match, and each jsonencode() or sql_string()
// around another doubles its quotes and backslashes, so twenty short
// nested calls ask for terabytes. 16 MiB is twice what file() reads.
const MaxStringBytes = 16 << 20

// maxFormatWidth bounds a format() verb's width and precision, each of
// which pads or extends its value to that many characters.
const maxFormatWidth = 1000

// sized wraps a function that makes a string: before refuses a call
// whose result would be too long (computed from the arguments, for a
// function that could make a huge one from small ones); after it, a
// result longer than MaxStringBytes is refused, which stops a chain of
// nested calls while each is at most a few times the last.
func sized(f function.Function, before func(args []cty.Value) error) function.Function {
	return guarded(f, before, func(v cty.Value) error {
		if u, _ := v.Unmark(); u.IsKnown() && !u.IsNull() && u.Type() == cty.String && len(u.AsString()) > MaxStringBytes {
			return tooLong(int64(len(u.AsString())))
		}
		return nil
	})
}

// guarded is f with before checking each call's arguments and after its
// result (either may be nil); an error of either refuses the call.
func guarded(f function.Function, before func(args []cty.Value) error, after func(cty.Value) error) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type:        func(args []cty.Value) (cty.Type, error) { return f.ReturnTypeForValues(args) },
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if before != nil {
				if err := before(args); err != nil {
					return cty.NilVal, err
				}
			}
			v, err := f.Call(args)
			if err != nil || after == nil {
				return v, err
			}
			if err := after(v); err != nil {
				return cty.NilVal, err
			}
			return v, nil
		},
	})
}

func tooLong(n int64) error {
	return fmt.Errorf("the result would be %d bytes long, more than the %s a function may make", n, mib(MaxStringBytes))
}

// replaceSize is the length of replace()'s result, refused past
// MaxStringBytes before it is made.
func replaceSize(args []cty.Value) error {
	s, sub, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
	n := int64(strings.Count(s, sub)) // an empty substring matches before each character and at the end
	if sub == "" {
		n = int64(utf8.RuneCountInString(s)) + 1
	}
	if size := int64(len(s)) + n*(int64(len(repl))-int64(len(sub))); size > MaxStringBytes {
		return tooLong(size)
	}
	return nil
}

// joinSize is the length of join()'s result, refused past MaxStringBytes
// before it is made.
func joinSize(args []cty.Value) error {
	sep := int64(len(args[0].AsString()))
	var size, n int64
	for _, list := range args[1:] {
		if !list.IsKnown() || list.IsNull() {
			continue
		}
		for it := list.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
				size += int64(len(e.AsString()))
			}
			n++
		}
	}
	if n > 0 {
		size += (n - 1) * sep
	}
	if size > MaxStringBytes {
		return tooLong(size)
	}
	return nil
}

// formatVerb finds format()'s verbs, with their width and precision;
// "%%" is a percent sign.
var formatVerb = regexp.MustCompile(`%%|%[-+# 0]*(?:\[\d+\])?(\d*)(?:\.(\d*))?`)

// formatWidths refuses a format() verb whose width or precision is above
// maxFormatWidth, as format("%999999999d", 1) makes a gigabyte.
func formatWidths(args []cty.Value) error {
	for _, m := range formatVerb.FindAllStringSubmatch(args[0].AsString(), -1) {
		for _, digits := range m[1:] {
			if n, err := strconv.Atoi(digits); digits != "" && (err != nil || n > maxFormatWidth) {
				return function.NewArgErrorf(0, "a width or precision of %s is more than the %d format() takes", digits, maxFormatWidth)
			}
		}
	}
	return nil
}
