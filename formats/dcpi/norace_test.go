//go:build !race

package dcpi

const raceEnabled = false
