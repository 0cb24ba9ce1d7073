//go:build !unix

package main

// machineSlots is per binary here: without flock the bound is -parallel's.
type machineSlots struct {
	dir string
	n   int
}

func (s machineSlots) take() func() { return func() {} }
