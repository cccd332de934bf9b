package sim

// simLive holds the simulator's Requests inside engines in slots whose
// index is the engine Request's Tag, so an event finds its Request
// without hashing an ID. Freed slots are reused.
type simLive struct {
	slots []*simReq
	free  []int32
}

// next is the slot the next put fills.
func (l *simLive) next() int {
	if n := len(l.free); n > 0 {
		return int(l.free[n-1])
	}
	return len(l.slots)
}

// put stores sr in the slot next returned.
func (l *simLive) put(sr *simReq) {
	if n := len(l.free); n > 0 {
		l.slots[l.free[n-1]], l.free = sr, l.free[:n-1]
		return
	}
	l.slots = append(l.slots, sr)
}

// get returns the Request in slot tag, nil when there is none.
func (l *simLive) get(tag int64) *simReq {
	if tag < 0 || tag >= int64(len(l.slots)) {
		return nil
	}
	return l.slots[tag]
}

// del empties slot tag.
func (l *simLive) del(tag int64) {
	l.slots[tag] = nil
	l.free = append(l.free, int32(tag))
}
