package blockgroup

import "testing"

func TestArenaHoldsAndReuses(t *testing.T) {
	var a Arena
	g := a.New(7)
	if a.Key(g) != 7 || a.Len(g) != 0 || a.Member(g, 3) != -1 {
		t.Fatalf("new group: key %d len %d member %d", a.Key(g), a.Len(g), a.Member(g, 3))
	}
	if !a.Add(g, 3, 0) || !a.Add(g, Size-1, 41) {
		t.Fatal("Add to empty positions refused")
	}
	if a.Add(g, 3, 9) {
		t.Fatal("Add to a held position accepted")
	}
	if a.Member(g, 3) != 0 || a.Member(g, Size-1) != 41 || a.Len(g) != 2 {
		t.Fatalf("members %d %d, len %d; want 0 41, 2", a.Member(g, 3), a.Member(g, Size-1), a.Len(g))
	}
	other := a.New(8)
	if other == g {
		t.Fatal("a live group handed out again")
	}
	if a.Remove(g, 3) {
		t.Fatal("Remove of one of two members freed the group")
	}
	if !a.Remove(g, Size-1) {
		t.Fatal("Remove of the last member did not free the group")
	}
	if again := a.New(9); again != g || a.Key(again) != 9 || a.Len(again) != 0 || a.Member(again, Size-1) != -1 {
		t.Fatalf("freed group not reused empty: got %d (want %d), key %d, len %d", again, g, a.Key(again), a.Len(again))
	}
	a.Reset()
	if g := a.New(1); g != 0 {
		t.Fatalf("after Reset the first group is %d, want 0", g)
	}
}
