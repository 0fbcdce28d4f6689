//go:build race

package dcpi

const raceEnabled = true
