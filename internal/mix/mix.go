// Package mix holds the one bit mixer mcpcheck's deterministic choices use
// (shard assignment in the runner, value choice in the generator): both
// hash their inputs with FNV-64a, whose low bits vary little for similar
// inputs, and spread them with [Spread] so that every bit counts. A shard
// or a generated value is the same on every machine and every run.
package mix

// Spread mixes the bits of x over the whole word: splitmix64's finaliser.
func Spread(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
