package kubernetes

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// volumeMount is a container's mount of a named volume.
type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}

// volume is a Pod volume; PVC is set for a persistentVolumeClaim.
type volume struct {
	Name string `yaml:"name"`
	PVC  *struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

// manifest is the subset of a Job or PVC the checks read.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Args         []string      `yaml:"args"`
					VolumeMounts []volumeMount `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []volume `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func load(t *testing.T, path string) manifest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

func TestReplayJobShards(t *testing.T) {
	job := load(t, "replay-job.yaml")
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" {
		t.Fatalf("kind %q mode %q, want an Indexed Job", job.Kind, job.Spec.CompletionMode)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	var n int
	shard := flagValue(args, "shard")
	if _, err := fmt.Sscanf(shard, "$(JOB_COMPLETION_INDEX)/%d", &n); err != nil {
		t.Fatalf("--shard=%q: want $(JOB_COMPLETION_INDEX)/n", shard)
	}
	if job.Spec.Completions != n || job.Spec.Parallelism != n {
		t.Fatalf("completions %d, parallelism %d, shards %d: must agree", job.Spec.Completions, job.Spec.Parallelism, n)
	}
	if out := flagValue(args, "out"); !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Fatalf("--out=%q must name the shard so pods do not overwrite each other", out)
	}
	if job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatal("a failed shard must not be re-run silently: restartPolicy Never")
	}
}

func TestVolumesAndMergeAgree(t *testing.T) {
	pvc := load(t, "pvc.yaml")
	job, merge := load(t, "replay-job.yaml"), load(t, "merge-job.yaml")
	for _, m := range []manifest{job, merge} {
		if claim := claimOf(m, "results"); claim != pvc.Metadata.Name {
			t.Fatalf("%s mounts claim %q, want %q", m.Metadata.Name, claim, pvc.Metadata.Name)
		}
	}
	out := flagValue(job.Spec.Template.Spec.Containers[0].Args, "out")
	script := strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " ")
	for i := 0; i < job.Spec.Completions; i++ {
		want := strings.ReplaceAll(out, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i))
		if !strings.Contains(script, want) {
			t.Fatalf("merge does not read shard file %s", want)
		}
	}
	files := regexp.MustCompile(`shard-\d+\.jsonl`).FindAllString(script, -1)
	if len(files) != job.Spec.Completions {
		t.Fatalf("merge reads %d shard files, the job writes %d", len(files), job.Spec.Completions)
	}
}

// claimOf returns the PVC claim mounted under volume name in m.
func claimOf(m manifest, name string) string {
	for _, v := range m.Spec.Template.Spec.Volumes {
		if v.Name == name && v.PVC != nil {
			return v.PVC.ClaimName
		}
	}
	return ""
}

// podManifest is the subset of a Pod the checks read.
type podManifest struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Containers []struct {
			VolumeMounts []volumeMount `yaml:"volumeMounts"`
		} `yaml:"containers"`
		Volumes []volume `yaml:"volumes"`
	} `yaml:"spec"`
}

// TestTraceOnSharedVolume: the shards read the trace from the shared
// volume, where files-pod.yaml (mounting the same claim at the same path)
// and the README copy it.
func TestTraceOnSharedVolume(t *testing.T) {
	job, pvc := load(t, "replay-job.yaml"), load(t, "pvc.yaml")
	c := job.Spec.Template.Spec.Containers[0]
	trace := flagValue(c.Args, "trace")
	mount := ""
	for _, m := range c.VolumeMounts {
		if m.Name == "results" {
			mount = m.MountPath
		}
	}
	if mount == "" || !strings.HasPrefix(trace, mount+"/") {
		t.Fatalf("--trace=%q is not on the results volume (mounted at %q)", trace, mount)
	}
	b, err := os.ReadFile("files-pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pod podManifest
	if err := yaml.Unmarshal(b, &pod); err != nil {
		t.Fatal(err)
	}
	if pod.Kind != "Pod" || len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].PVC == nil ||
		pod.Spec.Volumes[0].PVC.ClaimName != pvc.Metadata.Name {
		t.Fatalf("files pod must mount claim %q: %+v", pvc.Metadata.Name, pod.Spec.Volumes)
	}
	if m := pod.Spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].MountPath != mount {
		t.Fatalf("files pod mounts %+v, want the claim at %s like the shards", m, mount)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{string(b), string(readme)} {
		if !strings.Contains(doc, "tracebench-files:"+trace) {
			t.Errorf("the trace is not copied to %s", trace)
		}
	}
}
