// Package kubernetes holds the manifests that run a sharded replay as a
// Kubernetes Indexed Job, routing client-side or through one tracebench
// gateway (a Deployment and its Service), and tests that check the fields
// that must agree across them (shard count, completion index, volume
// names, paths, the trace on the shared volume, the gateway's address,
// port and drain).
package kubernetes
