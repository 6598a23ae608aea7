package fakekubeenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "fakekube", "echo fakekube 0.1.0")
	cases := []struct {
		name, binary, python, path string
		wantArgv                   []string
		wantErr                    []string
	}{
		{name: "binary", binary: script, wantArgv: []string{script}},
		{name: "binary wins over python", binary: script, python: "/usr/bin/env", wantArgv: []string{script}},
		{name: "python", python: "/usr/bin/env", wantArgv: []string{"/usr/bin/env", "-m", "fakekube"}},
		{name: "PATH", path: dir, wantArgv: []string{script}},
		{name: "missing binary", binary: filepath.Join(dir, "nope"), wantErr: []string{"FAKEKUBE_BINARY=", "not an executable", InstallHint}},
		{name: "missing python", python: filepath.Join(dir, "nope"), wantErr: []string{"FAKEKUBE_PYTHON=", InstallHint}},
		{name: "nothing", path: t.TempDir(), wantErr: []string{"cannot find fakekube", "FAKEKUBE_BINARY and FAKEKUBE_PYTHON are unset", InstallHint}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FAKEKUBE_BINARY", tc.binary)
			t.Setenv("FAKEKUBE_PYTHON", tc.python)
			t.Setenv("PATH", tc.path)
			cmd, err := locate()
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; got %v", cmd)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cmd.argv, " ") != strings.Join(tc.wantArgv, " ") {
				t.Errorf("argv %v, want %v", cmd.argv, tc.wantArgv)
			}
		})
	}
}

func TestAskVersion(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body, version string
		wantErr             []string
	}{
		{name: "current", body: `echo "fakekube 0.1.0"`, version: "0.1.0"},
		{name: "newer, with a warning line first", body: `echo "warning: something" >&2; echo "fakekube 2.0.0.dev3"`, version: "2.0.0.dev3"},
		{name: "older", body: `echo "fakekube 0.0.9"`, wantErr: []string{"is fakekube 0.0.9, too old", ">= " + MinimumVersion, InstallHint}},
		{name: "no --version", body: `echo "fakekube: error: unrecognized arguments: --version" >&2; exit 2`,
			wantErr: []string{"too old: it has no --version", "unrecognized arguments", InstallHint}},
		{name: "python without fakekube", body: `echo "/usr/bin/python3: No module named fakekube" >&2; exit 1`,
			wantErr: []string{"has no fakekube installed", InstallHint}},
		{name: "garbage", body: `echo "hello"`, wantErr: []string{`printed "hello"`}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			script := writeScript(t, dir, "fk"+string(rune('a'+i)), tc.body)
			version, err := askVersion(command{argv: []string{script}, source: "test"})
			if tc.wantErr == nil {
				if err != nil || version != tc.version {
					t.Fatalf("got %q, %v; want %q", version, err, tc.version)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; version %q", version)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"0.1.0", "0.1.0", 0}, {"0.1", "0.1.0", 0}, {"0.0.9", "0.1.0", -1}, {"0.10.0", "0.9.0", 1},
		{"1.0.0rc1", "1.0.0", 0}, {"0.2.0.dev1", "0.1.0", 1},
	}
	for _, tc := range cases {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestServeArgs(t *testing.T) {
	cases := []struct {
		name    string
		env     Environment
		want    string
		wantErr string
	}{
		{name: "defaults", env: Environment{}, want: ""},
		{name: "bare", env: Environment{NoControllers: true, KubernetesVersion: "v1.30.4"}, want: "--kubernetes-version 1.30 --no-controllers"},
		{name: "cluster", env: Environment{Nodes: 3, Controllers: []string{"*", "-job"}, ServeArgs: []string{"--probe-scale", "0"}},
			want: "--nodes 3 --controllers *,-job --probe-scale 0"},
		{name: "both", env: Environment{NoControllers: true, Controllers: []string{"job"}}, wantErr: "not both"},
		{name: "negative nodes", env: Environment{Nodes: -1}, wantErr: "cannot be negative"},
		{name: "bad version", env: Environment{KubernetesVersion: "latest"}, wantErr: `"latest" is not 1.X`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, err := tc.env.serveArgs()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || strings.Join(args, " ") != tc.want {
				t.Fatalf("args %q, %v; want %q", strings.Join(args, " "), err, tc.want)
			}
		})
	}
}

func TestConflictsCountsCompleted409sButNotAlreadyExists(t *testing.T) {
	counts, err := Conflicts("testdata/audit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"guestbooks.webapp.example.com/status": 2, "deployments.apps": 1}
	if len(counts) != len(want) {
		t.Fatalf("got %v, want %v", counts, want)
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{}\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Conflicts(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: not an audit event") {
		t.Errorf("error %v", err)
	}
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
