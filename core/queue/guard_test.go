package queue

import (
	"errors"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/guard"
)

// workedExample is the 1000-byte queue.log of docs/format/queue.md §3.5.
const workedExample = "113\t308e94c3\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"payload\":{\"task\":\"render\",\"page\":1},\"ts\":1700000000}\n" +
	"89\ta1d7be8d\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"payload\":[],\"ts\":1700000000}\n" +
	"115\t8a198a41\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"payload\":{\"to\":\"a/b@é.test\",\"n\":1.0},\"ts\":1700000001}\n" +
	"74\tc36a1141\t{\"op\":\"claim\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"ts\":1700000005}\n" +
	"74\t4b64f9a1\t{\"op\":\"claim\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"ts\":1700000005}\n" +
	"89\t7d2f1bef\t{\"op\":\"complete\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"done\":true,\"ts\":1700000010}\n" +
	"76\t893d55d9\t{\"op\":\"requeue\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"ts\":1700003700}\n" +
	"74\t3ef75350\t{\"op\":\"claim\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"ts\":1700003701}\n" +
	"90\t4712d17a\t{\"op\":\"complete\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"done\":false,\"ts\":1700003702}\n" +
	"74\t4f07f53a\t{\"op\":\"purge\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"ts\":1700090000}\n"

// The worked example's lines are exactly what the guard writes.
func TestWorkedExampleFraming(t *testing.T) {
	if len(workedExample) != 1000 {
		t.Fatalf("worked example is %d bytes", len(workedExample))
	}
	for _, line := range strings.SplitAfter(workedExample, "\n") {
		if line == "" {
			continue
		}
		json, fault := guard.Queue().Parse([]byte(line))
		if fault != guard.OK {
			t.Fatalf("guard.Queue().Parse(%q) = %v", line, fault)
		}
		if got := string(guard.Append(nil, json)); got != line {
			t.Errorf("guard.Append = %q, want %q", got, line)
		}
	}
}

// Each guard fault maps to the queue's PHP message (docs/format/queue.md §2.2).
func TestGuardErrors(t *testing.T) {
	for _, tc := range []struct {
		line string
		want error
	}{
		{"3\t32d153ff\tabc", ErrTornLine},
		{"+3\t32d153ff\tabc\n", ErrMalformedLine},
		{"3\t32d153ff\n", ErrMalformedLine},
		{"4\t32d153ff\tabc\n", ErrCorruptLine},
		{"3\t32D153FF\tabc\n", ErrCorruptLine},
	} {
		_, _, err := decodeLine([]byte(tc.line))
		if !errors.Is(err, tc.want) || err.Error() != tc.want.Error() {
			t.Errorf("decodeLine(%q) = %v, want %v", tc.line, err, tc.want)
		}
	}
	if guardError(guard.Corrupt) != ErrCorruptLine {
		t.Error("guard.Corrupt is not ErrCorruptLine")
	}
}
