package sim

import "testing"

// TestSimLiveReusesSlots checks that a freed slot is the next one filled
// and that get finds each Request by its slot only while it is live.
func TestSimLiveReusesSlots(t *testing.T) {
	var l simLive
	a, b, c := &simReq{}, &simReq{}, &simReq{}
	for i, sr := range []*simReq{a, b} {
		if n := l.next(); n != i {
			t.Fatalf("next %d, want %d", n, i)
		}
		l.put(sr)
	}
	l.del(0)
	if l.get(0) != nil || l.get(1) != b || l.get(2) != nil || l.get(-1) != nil {
		t.Fatalf("after del(0): slots %v", l.slots)
	}
	if n := l.next(); n != 0 {
		t.Fatalf("next after del(0) is %d, want the freed 0", n)
	}
	l.put(c)
	if l.get(0) != c || l.next() != 2 {
		t.Fatalf("slot 0 holds %p (want %p), next %d (want 2)", l.get(0), c, l.next())
	}
}
