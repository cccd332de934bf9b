package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/internal/fakesse"
)

func TestListModels(t *testing.T) {
	const key = "sk-secret-123"
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    []string
		wantErr string
	}{
		{"vLLM list", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer "+key {
				http.Error(w, "bad request "+r.URL.Path, http.StatusBadRequest)
				return
			}
			fmt.Fprint(w, `{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model",`+
				`"owned_by":"vllm","max_model_len":8192},{"id":"sql-lora","object":"model","parent":"x"}]}`)
		}, []string{"meta-llama/Llama-3.1-8B-Instruct", "sql-lora"}, ""},
		{"empty list", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"data":[]}`) }, nil, "no models"},
		{"401 echoing the key", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "invalid key "+key, http.StatusUnauthorized)
		}, nil, "HTTP 401"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, nil, "decode response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakesse.RawServer(t, tc.handler)
			c := New(Options{APIKey: key})
			defer c.Close()
			got, err := ListModels(context.Background(), c, srv.URL)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), key) {
					t.Fatalf("error %q leaks the API key", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ListModels: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("models mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListModelsRefused(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	_, err := ListModels(context.Background(), c, "http://"+fakesse.ClosedAddr(t))
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want connection refused", err)
	}
}
