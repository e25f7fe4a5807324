package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// remoteStatusCmd is `studio schedules status --remote URL`: the scheduler's
// status of a running Studio, from its operator route with a deploy token
// (--token, or STUDIO_DEPLOY_TOKEN), for a machine that has no database.
func remoteStatusCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("schedules status --remote", flag.ContinueOnError)
	remote := fs.String("remote", "", "the Studio to ask, e.g. https://studio.example")
	token := fs.String("token", os.Getenv("STUDIO_DEPLOY_TOKEN"), "a deploy token (studio token create --deploy); default $STUDIO_DEPLOY_TOKEN")
	asJSON := fs.Bool("json", false, "print the answer's JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		return errors.New("--remote needs a deploy token: --token or STUDIO_DEPLOY_TOKEN (studio token create --deploy)")
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(*remote, "/")+"/api/admin/schedules/status", nil)
	if err != nil {
		return fmt.Errorf("--remote: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+*token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	var out struct {
		Healthy    bool      `json:"healthy"`
		State      string    `json:"state"`
		LastTick   time.Time `json:"lastTick"`
		NextWakeAt time.Time `json:"nextWakeAt"`
		Trigger    string    `json:"trigger"`
		Database   string    `json:"database"`
		Due        []any     `json:"dueNotClaimed"`
		PastLease  []any     `json:"pastLease"`
		Lateness   *struct {
			Published int     `json:"published"`
			P50       float64 `json:"p50Seconds"`
			P95       float64 `json:"p95Seconds"`
		} `json:"lateness7d"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &out); err != nil || res.StatusCode != http.StatusOK {
		if out.Error != nil {
			return fmt.Errorf("%s answered %d: %s", *remote, res.StatusCode, out.Error.Message)
		}
		return fmt.Errorf("%s answered %d, not the scheduler's status", *remote, res.StatusCode)
	}
	if *asJSON {
		_, err := stdout.Write(body)
		return err
	}
	health := "healthy"
	if !out.Healthy {
		health = "NOT healthy (" + out.State + ")"
	}
	fmt.Fprintf(stdout, "scheduler %s", health)
	if !out.LastTick.IsZero() {
		fmt.Fprintf(stdout, "; last tick %s (%s), next %s", out.LastTick.Format(time.RFC3339), out.Trigger, out.NextWakeAt.Format(time.RFC3339))
	}
	fmt.Fprintln(stdout)
	if out.Database != "" {
		fmt.Fprintf(stdout, "database: %s\n", out.Database)
	}
	if l := out.Lateness; l != nil {
		fmt.Fprintf(stdout, "last 7 days: %d published, lateness p50 %.1f s, p95 %.1f s\n", l.Published, l.P50, l.P95)
	}
	fmt.Fprintf(stdout, "due and not taken: %d; running past their lease: %d\n", len(out.Due), len(out.PastLease))
	return nil
}

// remoteFlag reports whether args ask for --remote.
func remoteFlag(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--remote" || a == "-remote" || strings.HasPrefix(a, "--remote=") || strings.HasPrefix(a, "-remote=")
	})
}
