// Command testpg runs a command beside a throwaway PostgreSQL server that
// it starts first and stops after, with the server's URL in
// STUDIO_TEST_POSTGRES: make test's PostgreSQL run, whose test processes
// (one per package) then share one server instead of each starting its
// own, seconds of CPU each.
//
//	testpg go test ./store/... ./engine/...
//
// It exits with the command's status.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"studio/store/storetest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testpg command [argument ...]")
		os.Exit(2)
	}
	url, stop, err := storetest.StartServer()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testpg: PostgreSQL: %v\n", err)
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = append(os.Environ(), "STUDIO_TEST_POSTGRES="+url)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	stop()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintf(os.Stderr, "testpg: %v\n", err)
		os.Exit(1)
	}
}
