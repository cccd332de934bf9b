package policies

// arenaAlloc returns a free node of an arena whose nodes links threads
// into LRU lists: the node freed last, else a new zero node appended to
// *nodes with a detached link.
func arenaAlloc[T any](nodes *[]T, links *lruLinks, free *[]int32) int32 {
	if k := len(*free); k > 0 {
		n := (*free)[k-1]
		*free = (*free)[:k-1]
		return n
	}
	var zero T
	*nodes = append(*nodes, zero)
	links.appendNode()
	return int32(len(*nodes) - 1)
}
