package fakekubeenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// AuditEvent is the part of an audit.k8s.io/v1 Event that Conflicts and timelines read.
type AuditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	// RequestReceivedTimestamp orders a timeline (the PR #508 tables' Delta column).
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	ObjectRef                *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"responseStatus"`
}

// Resource is "resource[.group][/subresource]", e.g. "deployments.apps" or "guestbooks.webapp.example.com/status".
func (e AuditEvent) Resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	name := e.ObjectRef.Resource
	if e.ObjectRef.APIGroup != "" {
		name += "." + e.ObjectRef.APIGroup
	}
	if e.ObjectRef.Subresource != "" {
		name += "/" + e.ObjectRef.Subresource
	}
	return name
}

// IsConflict is true for a completed request answered 409 for a stale resourceVersion or a concurrent
// change ("the object has been modified"; reason Conflict). A 409 AlreadyExists is not a conflict.
func (e AuditEvent) IsConflict() bool {
	return e.Stage == "ResponseComplete" && e.ResponseStatus != nil && e.ResponseStatus.Code == 409 &&
		e.ResponseStatus.Reason != "AlreadyExists"
}

// ReadAuditLog reads an audit log of JSON lines, as kube-apiserver (--audit-log-format=json) and
// `fakekube serve --audit-log` write it.
func ReadAuditLog(path string) ([]AuditEvent, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var events []AuditEvent
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 64*1024), 64*1024*1024) // RequestResponse events carry whole objects
	for line := 1; scanner.Scan(); line++ {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var event AuditEvent
		if err := json.Unmarshal(scanner.Bytes(), &event); err != nil {
			return nil, fmt.Errorf("%s:%d: not an audit event: %w", path, line, err)
		}
		events = append(events, event)
	}
	return events, scanner.Err()
}

// Conflicts counts the conflicts (see AuditEvent.IsConflict) in an audit log by resource (see
// AuditEvent.Resource): the number PR-style "Update vs Patch" comparisons report.
func Conflicts(path string) (map[string]int, error) {
	events, err := ReadAuditLog(path)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, event := range events {
		if event.IsConflict() {
			counts[event.Resource()]++
		}
	}
	return counts, nil
}
