package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestOperatorsFromOutsideProcess (issue 16) drives the operator's commands on a
// real process: a deploy token made with `studio token create --deploy`
// lets `studio schedules status --remote` read a running Studio's
// scheduler; a wrong or revoked token is told why; --metrics-addr serves
// the metrics off the main address, which answers /metrics with a 404
// when serve has no --metrics-token.
func TestOperatorsFromOutsideProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data := t.TempDir()
	studio := func(env string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		if env != "" {
			cmd.Env = append(os.Environ(), env)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := studio("", "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v %s", err, out)
	}
	out, err := studio("", "token", "create", "--deploy", "--name", "ci", "--data", data)
	if err != nil {
		t.Fatalf("token create --deploy: %v %s", err, out)
	}
	secret := strings.SplitN(out, "\n", 2)[0]
	id := regexp.MustCompile(`dep_\w+`).FindString(out)
	if !strings.HasPrefix(secret, "studio_deploy_") || id == "" {
		t.Fatalf("token create --deploy printed:\n%s", out)
	}
	if out, err := studio("", "token", "create", "--deploy", "--name", "x", "--user", "owner@demo.test", "--data", data); err == nil {
		t.Errorf("a deploy token for a person was made:\n%s", out)
	}

	url, banner, _ := startServe(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--metrics-addr", "127.0.0.1:0"))
	metricsURL := regexp.MustCompile(`Metrics on (http://[0-9.:]+/metrics)`).FindStringSubmatch(banner)
	if metricsURL == nil {
		t.Fatalf("serve --metrics-addr printed no metrics address:\n%s", banner)
	}
	if code, body := get(t, metricsURL[1]); code != 200 || !strings.Contains(body, "studio_scheduler_ticks_total") {
		t.Errorf("--metrics-addr: %d %.200s", code, body)
	}
	// An address already taken stops serve before it says it is running.
	taken := strings.TrimSuffix(strings.TrimPrefix(metricsURL[1], "http://"), "/metrics")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	badAddr, err := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--metrics-addr", taken).CombinedOutput()
	if err == nil || !strings.Contains(string(badAddr), "--metrics-addr") || strings.Contains(string(badAddr), "Studio is running") {
		t.Errorf("serve --metrics-addr %s (taken): %v\n%s", taken, err, badAddr)
	}
	if code, body := get(t, url+"/metrics"); code != 404 || strings.Contains(body, "studio_") {
		t.Errorf("/metrics on the main address without --metrics-token: %d", code)
	}

	out, err = studio("STUDIO_DEPLOY_TOKEN="+secret, "schedules", "status", "--remote", url)
	if err != nil || !strings.Contains(out, "scheduler healthy; last tick") || !strings.Contains(out, "last 7 days: 0 published") ||
		!strings.Contains(out, "due and not taken: 0") {
		t.Errorf("status --remote: %v\n%s", err, out)
	}
	out, err = studio("", "schedules", "status", "--remote", url, "--token", "studio_deploy_wrong")
	if err == nil || !strings.Contains(out, "answered 401") {
		t.Errorf("status --remote with a wrong token: %v\n%s", err, out)
	}
	if out, err := studio("", "token", "revoke", "--data", data); err == nil || !strings.Contains(out, "Your account") {
		t.Errorf("token revoke without --deploy: %v %s", err, out)
	}
	if out, err := studio("", "token", "revoke", "--deploy", id, "--data", data); err != nil {
		t.Fatalf("token revoke: %v %s", err, out)
	}
	if out, err = studio("STUDIO_DEPLOY_TOKEN="+secret, "schedules", "status", "--remote", url); err == nil || !strings.Contains(out, "answered 401") {
		t.Errorf("status --remote with a revoked token: %v\n%s", err, out)
	}
}
