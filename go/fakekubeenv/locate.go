package fakekubeenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MinimumVersion is the oldest fakekube this package drives: the first with `fakekube --version` and
// `fakekube serve --ready-file`, which came together.
const MinimumVersion = "0.1.0"

// InstallHint says how to get fakekube; every "cannot find" and "too old" error ends with it.
const InstallHint = "install fakekube with its TLS extra into a Python (from a checkout: " +
	"python -m pip install -e '/path/to/fakekube[tls]'), then set FAKEKUBE_PYTHON to that Python " +
	"or FAKEKUBE_BINARY to its fakekube script, or put fakekube on PATH"

// command is how to run fakekube: argv's head, and where it came from (for error messages).
type command struct {
	argv   []string
	source string
}

func (c command) String() string { return fmt.Sprintf("%s (%s)", strings.Join(c.argv, " "), c.source) }

// locate finds fakekube: $FAKEKUBE_BINARY, then $FAKEKUBE_PYTHON, then PATH.
func locate() (command, error) {
	if bin := os.Getenv("FAKEKUBE_BINARY"); bin != "" {
		path, err := exec.LookPath(bin)
		if err != nil {
			return command{}, fmt.Errorf("fakekubeenv: FAKEKUBE_BINARY=%s is not an executable: %w; %s", bin, err, InstallHint)
		}
		return command{argv: []string{path}, source: "$FAKEKUBE_BINARY"}, nil
	}
	if python := os.Getenv("FAKEKUBE_PYTHON"); python != "" {
		path, err := exec.LookPath(python)
		if err != nil {
			return command{}, fmt.Errorf("fakekubeenv: FAKEKUBE_PYTHON=%s is not an executable: %w; %s", python, err, InstallHint)
		}
		return command{argv: []string{path, "-m", "fakekube"}, source: "$FAKEKUBE_PYTHON"}, nil
	}
	path, err := exec.LookPath("fakekube")
	if err != nil {
		return command{}, fmt.Errorf("fakekubeenv: cannot find fakekube: FAKEKUBE_BINARY and FAKEKUBE_PYTHON are unset "+
			"and there is no fakekube on PATH; %s", InstallHint)
	}
	return command{argv: []string{path}, source: "PATH"}, nil
}

// versionChecks remembers each command's answer: a suite starts many Environments, and asking costs a
// Python start-up (about half a second).
var versionChecks sync.Map // argv joined -> *versionCheck

type versionCheck struct {
	once    sync.Once
	version string
	err     error
}

// checkVersion runs `fakekube --version` once per command and process and compares it with MinimumVersion.
func checkVersion(cmd command) (string, error) {
	value, _ := versionChecks.LoadOrStore(strings.Join(cmd.argv, "\x00"), &versionCheck{})
	check := value.(*versionCheck)
	check.once.Do(func() { check.version, check.err = askVersion(cmd) })
	return check.version, check.err
}

func askVersion(cmd command) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, cmd.argv[0], append(cmd.argv[1:], "--version")...)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	err := run.Run()
	output := strings.TrimSpace(stdout.String() + "\n" + stderr.String())
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return "", fmt.Errorf("fakekubeenv: cannot run %s: %w; %s", cmd, err, InstallHint)
		}
		if strings.Contains(output, "No module named fakekube\n") || strings.HasSuffix(output, "No module named fakekube") {
			return "", fmt.Errorf("fakekubeenv: %s has no fakekube installed; %s", cmd, InstallHint)
		}
		// An older fakekube has no --version (argparse: "unrecognized arguments"; python -m: no __main__).
		return "", fmt.Errorf("fakekubeenv: %s is too old: it has no --version (%s); this package needs fakekube >= %s; %s",
			cmd, lastLine(output), MinimumVersion, InstallHint)
	}
	version, ok := parseVersion(stdout.String())
	if !ok {
		return "", fmt.Errorf("fakekubeenv: %s --version printed %q, not \"fakekube X.Y.Z\"", cmd, strings.TrimSpace(stdout.String()))
	}
	if compareVersions(version, MinimumVersion) < 0 {
		return version, fmt.Errorf("fakekubeenv: %s is fakekube %s, too old: this package needs fakekube >= %s; %s",
			cmd, version, MinimumVersion, InstallHint)
	}
	return version, nil
}

// parseVersion reads "fakekube 0.1.0" (the last line, so a warning printed before it does no harm).
func parseVersion(output string) (string, bool) {
	fields := strings.Fields(lastLine(output))
	if len(fields) != 2 || fields[0] != "fakekube" {
		return "", false
	}
	if _, ok := versionNumbers(fields[1]); !ok {
		return "", false
	}
	return fields[1], true
}

// compareVersions orders "X.Y.Z" release numbers (a PEP 440 suffix such as ".dev1" or "rc1" is ignored).
func compareVersions(a, b string) int {
	x, _ := versionNumbers(a)
	y, _ := versionNumbers(b)
	for i := range 3 {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionNumbers(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.SplitN(v, ".", 4)
	if len(parts) < 2 {
		return out, false
	}
	for i := 0; i < len(parts) && i < 3; i++ {
		digits := parts[i]
		end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
		if end == 0 {
			return out, false
		}
		if end > 0 {
			digits = digits[:end]
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

func lastLine(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		return strings.TrimSpace(text[i+1:])
	}
	return text
}
