// k8s-validate: checks rendered Kubernetes manifests offline, against the API types themselves.
//
//	helm template swflow ../swflow | k8s-validate            (or: k8s-validate file.yaml ...)
//
// Each YAML document is decoded strictly into the Go type of its apiVersion/kind from k8s.io/api
// (the types the API server's own schema is generated from): an unknown kind, an unknown or
// duplicate field, or a value of the wrong type fails. Then a few rules the types cannot express
// and the API server would reject: names, containers with a name and an image, selectors that
// match their pod template, probe ports that exist, an HPA or PDB that targets a workload.
// Errors name the document (kind/name) and the field. Exit status 1 on any error.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

var scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme, policyv1.AddToScheme, batchv1.AddToScheme, networkingv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func main() {
	var inputs []io.Reader
	if len(os.Args) > 1 {
		for _, name := range os.Args[1:] {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			defer f.Close()
			inputs = append(inputs, f)
		}
	} else {
		inputs = append(inputs, os.Stdin)
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	var errs []string
	count := 0
	for _, in := range inputs {
		for i, doc := range splitDocuments(in) {
			obj, gvk, err := decoder.Decode(doc, nil, nil)
			where := fmt.Sprintf("document %d", i+1)
			if gvk != nil {
				where = fmt.Sprintf("document %d (%s)", i+1, gvk.Kind)
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", where, err))
				continue
			}
			count++
			if m, ok := obj.(metav1.Object); ok {
				where = fmt.Sprintf("%s/%s", gvk.Kind, m.GetName())
			}
			for _, e := range check(obj) {
				errs = append(errs, fmt.Sprintf("%s: %s", where, e))
			}
		}
	}
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, e)
	}
	if len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "%d error(s) in %d document(s)\n", len(errs), count)
		os.Exit(1)
	}
	if count == 0 {
		fmt.Fprintln(os.Stderr, "no Kubernetes documents")
		os.Exit(1)
	}
	fmt.Printf("%d document(s) valid\n", count)
}

// splitDocuments splits a YAML stream on `---` lines, dropping empty and comment-only documents.
func splitDocuments(r io.Reader) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() {
		meaningful := false
		for _, line := range strings.Split(cur.String(), "\n") {
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "#") {
				meaningful = true
				break
			}
		}
		if meaningful {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
		}
		cur.Reset()
	}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "---") {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return docs
}

func check(obj runtime.Object) []string {
	var errs []string
	if m, ok := obj.(metav1.Object); ok {
		if !dns1123.MatchString(m.GetName()) || len(m.GetName()) > 253 {
			errs = append(errs, fmt.Sprintf("metadata.name %q is not a DNS-1123 name", m.GetName()))
		}
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		errs = append(errs, checkSelector("spec.selector", o.Spec.Selector, o.Spec.Template.Labels)...)
		errs = append(errs, checkPod("spec.template.spec", &o.Spec.Template.Spec)...)
	case *appsv1.StatefulSet:
		errs = append(errs, checkSelector("spec.selector", o.Spec.Selector, o.Spec.Template.Labels)...)
		errs = append(errs, checkPod("spec.template.spec", &o.Spec.Template.Spec)...)
	case *corev1.Service:
		if len(o.Spec.Ports) == 0 && o.Spec.ClusterIP != "None" {
			errs = append(errs, "spec.ports: a Service needs at least one port")
		}
		for i, p := range o.Spec.Ports {
			if p.Port < 1 || p.Port > 65535 {
				errs = append(errs, fmt.Sprintf("spec.ports[%d].port: %d is not a port", i, p.Port))
			}
		}
	case *autoscalingv2.HorizontalPodAutoscaler:
		if o.Spec.ScaleTargetRef.Kind == "" || o.Spec.ScaleTargetRef.Name == "" {
			errs = append(errs, "spec.scaleTargetRef: kind and name are required")
		}
		if o.Spec.MaxReplicas < 1 || (o.Spec.MinReplicas != nil && *o.Spec.MinReplicas > o.Spec.MaxReplicas) {
			errs = append(errs, "spec: maxReplicas must be >= 1 and >= minReplicas")
		}
		for i, m := range o.Spec.Metrics {
			if m.Type == "" {
				errs = append(errs, fmt.Sprintf("spec.metrics[%d].type is required", i))
			}
		}
	case *policyv1.PodDisruptionBudget:
		if (o.Spec.MinAvailable == nil) == (o.Spec.MaxUnavailable == nil) {
			errs = append(errs, "spec: exactly one of minAvailable and maxUnavailable")
		}
		if o.Spec.Selector == nil {
			errs = append(errs, "spec.selector is required")
		}
	case *corev1.Secret, *corev1.ConfigMap, *corev1.ServiceAccount:
	}
	return errs
}

func checkSelector(path string, sel *metav1.LabelSelector, podLabels map[string]string) []string {
	if sel == nil {
		return []string{path + " is required"}
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	if s.Empty() || !s.Matches(labels.Set(podLabels)) {
		return []string{fmt.Sprintf("%s does not match the pod template's labels %v", path, podLabels)}
	}
	return nil
}

func checkPod(path string, pod *corev1.PodSpec) []string {
	var errs []string
	if len(pod.Containers) == 0 {
		errs = append(errs, path+".containers: at least one container")
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
	}
	for i, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		where := fmt.Sprintf("%s.containers[%s]", path, c.Name)
		if c.Name == "" || !dns1123.MatchString(c.Name) {
			errs = append(errs, fmt.Sprintf("%s.containers[%d].name %q is not a DNS-1123 label", path, i, c.Name))
		}
		if strings.TrimSpace(c.Image) == "" {
			errs = append(errs, where+".image is required")
		}
		ports := map[string]int32{}
		for _, p := range c.Ports {
			if p.ContainerPort < 1 || p.ContainerPort > 65535 {
				errs = append(errs, fmt.Sprintf("%s.ports: %d is not a port", where, p.ContainerPort))
			}
			if p.Name != "" {
				ports[p.Name] = p.ContainerPort
			}
		}
		for name, probe := range map[string]*corev1.Probe{"livenessProbe": c.LivenessProbe, "readinessProbe": c.ReadinessProbe, "startupProbe": c.StartupProbe} {
			if probe == nil {
				continue
			}
			if probe.HTTPGet != nil && probe.HTTPGet.Port.Type == 1 {
				if _, ok := ports[probe.HTTPGet.Port.StrVal]; !ok {
					errs = append(errs, fmt.Sprintf("%s.%s.httpGet.port %q names no container port", where, name, probe.HTTPGet.Port.StrVal))
				}
			}
			if probe.HTTPGet == nil && probe.TCPSocket == nil && probe.Exec == nil && probe.GRPC == nil {
				errs = append(errs, fmt.Sprintf("%s.%s: a probe needs a handler", where, name))
			}
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				errs = append(errs, fmt.Sprintf("%s.volumeMounts: %q is not a volume of the pod", where, m.Name))
			}
		}
		for _, e := range c.Env {
			if e.Name == "" {
				errs = append(errs, where+".env: a variable needs a name")
			}
		}
	}
	return errs
}
