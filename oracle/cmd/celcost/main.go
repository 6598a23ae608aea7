// Command celcost prints what kube-apiserver's CRD rule code computes for x-kubernetes-validations rules:
// with no object, each rule's estimated cost (CompilationResult MaxCost, MaxCardinality and
// MessageExpressionMaxCost of k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel Compile); with an
// object, the runtime cost the rules spend validating it (Validator.Validate) and its errors.
//
// fakekube's estimator (fakekube/cel/cost.py) is checked against it: tests/cel/test_cost.py's figures marked
// "upstream estimator" came from here. Input and output are JSON lines:
//
//	{"schema": <openAPIV3Schema node with x-kubernetes-validations>, "root": false}
//	-> [{"maxCost": N, "maxCardinality": N, "messageCost": N, "error": ""}, ...]
//	{"schema": ..., "root": false, "obj": <value>, "old": <old value, optional>, "budget": 10000000}
//	-> {"cost": N, "remaining": N, "errors": ["..."]}
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type request struct {
	Schema json.RawMessage `json:"schema"`
	Root   bool            `json:"root"`
	Obj    any             `json:"obj"`
	Old    any             `json:"old"`
	Budget int64           `json:"budget"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<26), 1<<26)
	envSet := environment.MustBaseEnvSet(utilversion.MajorMinor(1, 37))
	for in.Scan() {
		out, err := answer(in.Bytes(), envSet)
		if err != nil {
			out = map[string]string{"error": err.Error()}
		}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
}

func answer(line []byte, envSet *environment.EnvSet) (any, error) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(req.Schema, &v1); err != nil {
		return nil, err
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	if req.Obj != nil {
		budget := req.Budget
		if budget == 0 {
			budget = math.MaxInt64
		}
		v := cel.NewValidator(s, req.Root, celconfig.PerCallLimit)
		var old any
		if req.Old != nil {
			old = numbers(req.Old)
		}
		errs, remaining := v.Validate(context.Background(), nil, s, numbers(req.Obj), old, budget)
		msgs := []string{}
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		return map[string]any{"cost": budget - remaining, "remaining": remaining, "errors": msgs}, nil
	}
	results, err := cel.Compile(s, model.SchemaDeclType(s, req.Root), celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, r := range results {
		detail := ""
		if r.Error != nil {
			detail = r.Error.Detail
		}
		out = append(out, map[string]any{"maxCost": r.MaxCost, "maxCardinality": r.MaxCardinality,
			"messageCost": r.MessageExpressionMaxCost, "error": detail})
	}
	return out, nil
}

// numbers gives JSON numbers the Go types the API server decodes them to: int64, else float64.
func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = numbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbers(x)
		}
	}
	return v
}
