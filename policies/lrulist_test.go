package policies

import (
	"slices"
	"testing"
)

// lruOp is one step on list a or b: push node n to the front, or unlink it.
type lruOp struct {
	list int
	push bool
	n    int32
}

// walk returns l's nodes head to tail and checks the back links agree.
func walk(t *testing.T, ls lruLinks, l lruList) []int32 {
	t.Helper()
	var fwd []int32
	for n := l.head; n >= 0; n = ls[n].next {
		fwd = append(fwd, n)
	}
	var back []int32
	for n := l.tail; n >= 0; n = ls[n].prev {
		back = append(back, n)
	}
	slices.Reverse(back)
	if !slices.Equal(fwd, back) {
		t.Fatalf("forward %v, backward %v", fwd, back)
	}
	if len(fwd) != l.n {
		t.Fatalf("n = %d, walked %v", l.n, fwd)
	}
	return fwd
}

func TestLRULinks(t *testing.T) {
	push := func(list int, n int32) lruOp { return lruOp{list: list, push: true, n: n} }
	drop := func(list int, n int32) lruOp { return lruOp{list: list, n: n} }
	tests := []struct {
		name  string
		nodes int
		ops   []lruOp
		a, b  []int32
	}{
		{"empty", 3, nil, nil, nil},
		{"push order", 3, []lruOp{push(0, 0), push(0, 1), push(0, 2)}, []int32{2, 1, 0}, nil},
		{"unlink only node", 1, []lruOp{push(0, 0), drop(0, 0)}, nil, nil},
		{"unlink head", 3, []lruOp{push(0, 0), push(0, 1), push(0, 2), drop(0, 2)}, []int32{1, 0}, nil},
		{"unlink tail", 3, []lruOp{push(0, 0), push(0, 1), push(0, 2), drop(0, 0)}, []int32{2, 1}, nil},
		{"unlink middle", 3, []lruOp{push(0, 0), push(0, 1), push(0, 2), drop(0, 1)}, []int32{2, 0}, nil},
		{"touch moves to front", 3, []lruOp{push(0, 0), push(0, 1), push(0, 2), drop(0, 0), push(0, 0)}, []int32{0, 2, 1}, nil},
		{"two lists share links", 4, []lruOp{push(0, 0), push(1, 1), push(0, 2), push(1, 3), drop(0, 0), push(1, 0)}, []int32{2}, []int32{0, 3, 1}},
		{"drain and refill", 2, []lruOp{push(1, 0), push(1, 1), drop(1, 1), drop(1, 0), push(1, 1)}, nil, []int32{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ls lruLinks
			for range tc.nodes {
				ls.appendNode()
			}
			var lists []lruList
			for _, op := range tc.ops {
				l := lruListAt(&lists, op.list)
				if op.push {
					ls.pushFront(l, op.n)
				} else {
					ls.unlink(l, op.n)
				}
			}
			for i, want := range [][]int32{tc.a, tc.b} {
				l := emptyLRU
				if i < len(lists) {
					l = lists[i]
				}
				if got := walk(t, ls, l); !slices.Equal(got, want) {
					t.Errorf("list %d = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func TestLRULinksUnlinkDetaches(t *testing.T) {
	var ls lruLinks
	for range 3 {
		ls.appendNode()
	}
	l := emptyLRU
	for n := range int32(3) {
		ls.pushFront(&l, n)
	}
	ls.unlink(&l, 1)
	if ls[1] != (lruLink{prev: -1, next: -1}) {
		t.Fatalf("unlinked node keeps links %+v", ls[1])
	}
}
