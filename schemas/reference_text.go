package schemas

// refText describes every path of the language for docs/reference.md
// (see Reference): a block by its path ("producer.follow"), an attribute
// by its block's path and name ("producer.follow.delay"), an object's
// argument by the attribute's path and the argument ("experiment.step.
// kafka.topic"), a function as "fn.NAME", a store as "store.KIND", and
// the sections' introductions by name ("intro", "kinds", "expressions",
// "functions", "types", "stores", "components"). Each says what the thing
// is, its type, its default and what the loader checks, briefly. The
// descriptions are kept in three files by part of the language:
// reference_stack.go (lab, variable, stack), reference_data.go (table,
// producer, functions, types, stores) and reference_run.go (job, preset,
// experiment, control, step kinds, expressions).
var refText = mergeText(refStack, refData, refRun, storeDocs())

// refDuplicates are keys described in more than one file.
var refDuplicates []string

func mergeText(parts ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range parts {
		for k, v := range p {
			if _, dup := out[k]; dup {
				refDuplicates = append(refDuplicates, k)
			}
			out[k] = v
		}
	}
	return out
}
