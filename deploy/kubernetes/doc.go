// Package kubernetes holds the manifests that run a sharded replay as a
// Kubernetes Indexed Job, and a test that checks the fields that must
// agree across them (shard count, completion index, volume names, paths,
// the trace on the shared volume).
package kubernetes
