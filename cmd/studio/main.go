// Command studio runs Studio: the pages, the public site and the ticker in
// one process, on one SQLite file (or, for several instances, one
// PostgreSQL database: --database or STUDIO_DATABASE). Subcommands:
//
//	studio [serve] [--addr 127.0.0.1:8080] [--data ./data | --database URL] [--demo] [--secure-cookies] [--trusted-proxy 10.0.0.0/8,…]
//	studio user add --email E --name N --role editor [--password-stdin] [--data DIR | --database URL]
//	studio token create --user EMAIL --name NAME [--data DIR | --database URL]
//	studio demo [--data DIR | --database URL]
//	studio schedules run-due|status [--data DIR | --database URL]
//	studio schedules resolve --local 2026-03-29T02:30 --zone Europe/Berlin
//	studio schedules preview --rule 'FREQ=MONTHLY;BYDAY=2TU' --start 2026-11-01T09:07 --zone Europe/Istanbul [--count 5] [--lang tr]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // the same zone data on every machine where the host has none

	"studio/store"
)

// systemClock is the one real clock; the engine never reads time itself.
type systemClock struct{}

func (systemClock) Now() time.Time                      { return time.Now() }
func (systemClock) WakeAt(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "studio:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serveCmd(ctx, args, stdout, log)
	case "user":
		if len(args) == 0 || args[0] != "add" {
			return errors.New("usage: studio user add --email E --name N --role ROLE [--password-stdin] [--data DIR | --database URL]")
		}
		return userAddCmd(ctx, args[1:], stdin, stdout)
	case "site":
		if len(args) == 0 || args[0] != "add" {
			return errors.New("usage: studio site add --name N --zone Z [--lang en|tr] [--public-url URL | --host HOST] [--data DIR | --database URL]")
		}
		return siteAddCmd(ctx, args[1:], stdout)
	case "token":
		switch {
		case len(args) > 0 && args[0] == "create":
			return tokenCreateCmd(ctx, args[1:], stdout)
		case len(args) > 0 && args[0] == "revoke":
			return tokenRevokeCmd(ctx, args[1:], stdout)
		}
		return errors.New("usage: studio token create --user EMAIL --name NAME | create --deploy --name NAME | revoke --deploy ID [--data DIR | --database URL]")
	case "demo":
		return demoCmd(ctx, args, stdout)
	case "version":
		return versionCmd(stdout)
	case "backup":
		return backupCmd(ctx, args, stdout)
	case "restore":
		return restoreCmd(ctx, args, stdout)
	case "schedules":
		if len(args) == 0 {
			return errors.New("usage: studio schedules run-due|status|list [--json] [--data DIR | --database URL] | status --remote URL | resolve --local T --zone Z | preview --rule R --start T --zone Z")
		}
		return schedulesCmd(ctx, args[0], args[1:], stdout)
	}
	return fmt.Errorf("unknown command %q (serve, site add, user add, token create, demo, schedules, backup, restore, version)", cmd)
}

// parseAndOpen adds --data (and --fresh) to the command's flags, parses
// args and opens (creating) the database in that folder (openData).
func parseAndOpen(ctx context.Context, fs *flag.FlagSet, args []string) (*store.Store, error) {
	st, _, err := openData(ctx, fs, args, nil)
	return st, err
}
