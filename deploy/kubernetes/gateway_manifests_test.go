package kubernetes

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// gatewayDeployment is the subset of the gateway's Deployment the checks
// read.
type gatewayDeployment struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				Containers                    []struct {
					Args  []string `yaml:"args"`
					Ports []struct {
						ContainerPort int `yaml:"containerPort"`
					} `yaml:"ports"`
					ReadinessProbe struct {
						HTTPGet struct {
							Path string `yaml:"path"`
							Port int    `yaml:"port"`
						} `yaml:"httpGet"`
					} `yaml:"readinessProbe"`
					VolumeMounts []volumeMount `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []volume `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// service is the subset of a Service the checks read.
type service struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Port       int `yaml:"port"`
			TargetPort int `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

func loadInto(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestGatewayManifests: the gateway Deployment, its Service and the
// shards' Job pointed at it agree: one gateway replica (one router
// state), listening on every interface on the port the Service targets
// and the readiness probe asks, a drain shorter than the pod's
// termination grace, results on the shared volume; the Job's shards all
// send to the Service's address and port.
func TestGatewayManifests(t *testing.T) {
	var d gatewayDeployment
	var s service
	loadInto(t, "gateway-deployment.yaml", &d)
	loadInto(t, "gateway-service.yaml", &s)
	if d.Kind != "Deployment" || d.Spec.Replicas != 1 {
		t.Fatalf("kind %q replicas %d: want one Deployment replica (one router state)", d.Kind, d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "gateway" || flagValue(c.Args, "host") != "0.0.0.0" {
		t.Fatalf("args %v: want `gateway --host=0.0.0.0` (the default 127.0.0.1 is unreachable from other pods)", c.Args)
	}
	port, err := strconv.Atoi(flagValue(c.Args, "port"))
	if err != nil || len(c.Ports) != 1 || c.Ports[0].ContainerPort != port || c.ReadinessProbe.HTTPGet.Port != port ||
		c.ReadinessProbe.HTTPGet.Path != "/health" {
		t.Fatalf("--port %d, container ports %+v, readiness probe %+v: must agree, probe /health", port, c.Ports, c.ReadinessProbe)
	}
	grace, err := time.ParseDuration(flagValue(c.Args, "grace"))
	if err != nil || grace >= time.Duration(pod.TerminationGracePeriodSeconds)*time.Second {
		t.Fatalf("--grace %v must be shorter than terminationGracePeriodSeconds %d, or the pod is killed before the results are written",
			grace, pod.TerminationGracePeriodSeconds)
	}
	if out := flagValue(c.Args, "out"); !strings.HasPrefix(out, c.VolumeMounts[0].MountPath+"/") ||
		pod.Volumes[0].PVC == nil || pod.Volumes[0].PVC.ClaimName != load(t, "pvc.yaml").Metadata.Name {
		t.Fatalf("--out %q is not on the shared results volume", out)
	}
	if s.Kind != "Service" || len(s.Spec.Ports) != 1 || s.Spec.Ports[0].TargetPort != port {
		t.Fatalf("service %+v does not target port %d", s.Spec, port)
	}
	for k, v := range s.Spec.Selector {
		if d.Spec.Template.Metadata.Labels[k] != v || d.Spec.Selector.MatchLabels[k] != v {
			t.Fatalf("service selector %s=%s does not select the gateway pods", k, v)
		}
	}
	checkShardsToGateway(t, s)
}

// checkShardsToGateway checks the shards' Job: an Indexed Job whose
// shard count agrees, each shard writing its own file and sending to the
// gateway Service alone.
func checkShardsToGateway(t *testing.T, s service) {
	t.Helper()
	job := load(t, "replay-gateway-job.yaml")
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("kind %q mode %q restart %q: want an Indexed Job, restartPolicy Never", job.Kind, job.Spec.CompletionMode,
			job.Spec.Template.Spec.RestartPolicy)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	var n int
	if _, err := fmt.Sscanf(flagValue(args, "shard"), "$(JOB_COMPLETION_INDEX)/%d", &n); err != nil ||
		job.Spec.Completions != n || job.Spec.Parallelism != n {
		t.Fatalf("--shard %q, completions %d, parallelism %d: must agree", flagValue(args, "shard"), job.Spec.Completions, job.Spec.Parallelism)
	}
	if !strings.Contains(flagValue(args, "out"), "$(JOB_COMPLETION_INDEX)") {
		t.Fatal("--out must name the shard so pods do not overwrite each other")
	}
	want := fmt.Sprintf("http://%s.default.svc:%d", s.Metadata.Name, s.Spec.Ports[0].Port)
	targets := 0
	for _, a := range args {
		if strings.HasPrefix(a, "--target=") {
			targets++
		}
	}
	if got := flagValue(args, "target"); got != want || targets != 1 {
		t.Fatalf("shards send to %q (%d targets), want the gateway Service %s alone", got, targets, want)
	}
}
