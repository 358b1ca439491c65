package fusefs

import (
	"math"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func TestValueNameRoundTrip(t *testing.T) {
	cases := []struct {
		v    phpjson.Value
		name string
	}{
		{"post", "post"},
		{"a/b", "a%2Fb"},
		{".hidden", "%2Ehidden"},
		{"..", "%2E."},
		{"=x", "%3Dx"},
		{"a=b.c", "a=b.c"},
		{"50%", "50%25"},
		{"nul\x00byte", "nul%00byte"},
		{"tab\there", "tab%09here"},
		{"caf\u00e9", "caf\u00e9"},
		{"bad\xffutf8", "bad%FFutf8"},
		{"1", "1"},
		{"", `=""`},
		{int64(1), "=1"},
		{int64(-42), "=-42"},
		{1.0, "=1.0"},
		{1.5, "=1.5"},
		{math.Copysign(0, -1), "=-0.0"},
		{1e25, "=1.0e+25"},
		{true, "=true"},
		{false, "=false"},
		{nil, "=null"},
	}
	for _, c := range cases {
		name, ok := valueName(c.v)
		if !ok || name != c.name {
			t.Errorf("valueName(%#v) = %q, %v; want %q", c.v, name, ok, c.name)
			continue
		}
		back, ok := valueOfName(name)
		if !ok || !phpjson.Identical(back, c.v) {
			t.Errorf("valueOfName(%q) = %#v, %v; want %#v", name, back, ok, c.v)
		}
	}
}

func TestValueNameRejects(t *testing.T) {
	for _, name := range []string{
		"", "%2", "%zz", "%2e", "%41", ".x", "=x", `="post"`, "=1.00", "=01", "= 1",
		"=[1]", `={"a":1}`, "=TRUE", "a%", "%2F%",
	} {
		if v, ok := valueOfName(name); ok {
			t.Errorf("valueOfName(%q) = %#v, want no value", name, v)
		}
	}
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'x'
	}
	if name, ok := valueName(string(long)); ok {
		t.Errorf("a 300-byte string got the name %q", name)
	}
}

func TestFieldName(t *testing.T) {
	for field, want := range map[string]string{"kind": "kind", "a/b": "a%2Fb", ".x": "%2Ex", "=": "%3D"} {
		name, ok := fieldName(field)
		if !ok || name != want {
			t.Errorf("fieldName(%q) = %q, %v; want %q", field, name, ok, want)
		}
		if back, ok := fieldOfName(name); !ok || back != field {
			t.Errorf("fieldOfName(%q) = %q, %v", name, back, ok)
		}
	}
	if _, ok := fieldOfName("%6Bind"); ok {
		t.Error("a non-canonical field name decoded")
	}
}
