package assert

// Snapshot compares a step's result with its golden answer, both already
// reduced by the step's snapshotIgnore and snapshotSanitize: one failure
// per differing path, with the stored value as expected.
func Snapshot(stored, actual any) []Failure {
	d := differ{kind: KindSnapshot}
	d.diff("", stored, actual)
	return d.out
}
