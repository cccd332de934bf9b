package policies

// lruLinks threads the nodes of an arena into doubly linked lists (lruList)
// without allocating: lruLinks[i] holds node i's neighbours, -1 meaning
// none. It grows alongside the arena (appendNode), and a node may sit in
// one list at a time.
type lruLinks []lruLink

type lruLink struct{ prev, next int32 }

// lruList is one list over lruLinks, head most recently pushed; n counts
// its nodes.
type lruList struct {
	head, tail int32
	n          int
}

// emptyLRU is a list with no nodes.
var emptyLRU = lruList{head: -1, tail: -1}

// lruListAt returns (*lists)[idx], first growing *lists with empty lists.
func lruListAt(lists *[]lruList, idx int) *lruList {
	for idx >= len(*lists) {
		*lists = append(*lists, emptyLRU)
	}
	return &(*lists)[idx]
}

// appendNode adds a detached link for a node appended to the arena.
func (ls *lruLinks) appendNode() { *ls = append(*ls, lruLink{prev: -1, next: -1}) }

// unlink takes node n out of l, which must hold it.
func (ls lruLinks) unlink(l *lruList, n int32) {
	nd := &ls[n]
	if nd.prev >= 0 {
		ls[nd.prev].next = nd.next
	} else {
		l.head = nd.next
	}
	if nd.next >= 0 {
		ls[nd.next].prev = nd.prev
	} else {
		l.tail = nd.prev
	}
	nd.prev, nd.next = -1, -1
	l.n--
}

// pushFront makes the detached node n the head of l.
func (ls lruLinks) pushFront(l *lruList, n int32) {
	nd := &ls[n]
	nd.prev, nd.next = -1, l.head
	if l.head >= 0 {
		ls[l.head].prev = n
	}
	l.head = n
	if l.tail < 0 {
		l.tail = n
	}
	l.n++
}
