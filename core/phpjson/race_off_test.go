//go:build !race

package phpjson

const raceEnabled = false
