package phpjson

import "testing"

func TestCloneIsDeep(t *testing.T) {
	v, err := Decode([]byte(`{"a":1,"n":{"x":[1,2]},"s":"t","b":1,"c":2,"d":3,"e":4,"f":5,"g":6}`))
	if err != nil {
		t.Fatal(err)
	}
	orig := v.(*Array)
	want, _ := Encode(orig)
	c := orig.Clone()
	if got, _ := Encode(c); string(got) != string(want) {
		t.Fatalf("clone encodes as %s, want %s", got, want)
	}
	c.SetString("a", int64(2))
	c.Delete(StrKey("g"))
	n, _ := c.Lookup("n")
	n.(*Array).SetString("y", true)
	x, _ := n.(*Array).Lookup("x")
	x.(*Array).Append(int64(3))
	c.Append("new")
	if got, _ := Encode(orig); string(got) != string(want) {
		t.Fatalf("changing the clone changed the original: %s, want %s", got, want)
	}
	if (*Array)(nil).Clone() != nil {
		t.Fatal("nil clones to non-nil")
	}
}
