package results

import (
	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

// ShardSource yields only the Requests of src whose affinity key (session,
// else user, else id) hashes into shard i of n, so each shard keeps whole
// sessions and users. n <= 1 returns src unchanged.
func ShardSource(src traces.Source, i, n int) traces.Source {
	if n <= 1 {
		return src
	}
	return &shardSource{src: src, i: uint64(i), n: uint64(n)}
}

type shardSource struct {
	src  traces.Source
	i, n uint64
}

// InShard reports whether req belongs to shard i of n.
func InShard(req *traces.Request, i, n int) bool {
	if n <= 1 {
		return true
	}
	return xxhash.Sum64String(req.Key())%uint64(n) == uint64(i)
}

func (s *shardSource) Next() (traces.Request, error) {
	for {
		r, err := s.src.Next()
		if err != nil {
			return r, err
		}
		if InShard(&r, int(s.i), int(s.n)) {
			return r, nil
		}
	}
}
