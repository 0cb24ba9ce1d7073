package assert

// Includes reports whether got includes want: the semantics of
// structuredIncludes (objects may have extra keys, recursively; arrays
// match in length and order), with matchers where the expected value holds
// them.
func Includes(want, got any) bool {
	d := differ{subset: true}
	d.diff("", want, got)
	return len(d.out) == 0
}
