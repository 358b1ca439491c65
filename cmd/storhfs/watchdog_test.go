package main

import (
	"os"
	"strconv"
	"testing"
)

func TestLeaderState(t *testing.T) {
	cases := map[string]string{
		"1234 (storhfs) S 1 1234 1234 0 -1": "S",
		"1234 (storhfs) Z 1 1234":           "Z",
		"1234 (a) b) (c) D 1":               "D", // the command name may hold ") "
		"1234 (storhfs)":                    "",
		"":                                  "",
	}
	for stat, want := range cases {
		if got := leaderState([]byte(stat)); got != want {
			t.Errorf("leaderState(%q) = %q, want %q", stat, got, want)
		}
	}
}

func TestLeaderStateOfThisProcess(t *testing.T) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getpid()) + "/stat")
	if err != nil {
		t.Skip(err)
	}
	if s := leaderState(stat); s != "R" && s != "S" {
		t.Errorf("this process's leader is in state %q, want R or S", s)
	}
}
