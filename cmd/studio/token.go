package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/services"
	"studio/handlers/refusal"
	"studio/locales"
)

// tokenCreateCmd is `studio token create --user EMAIL --name NAME`: it
// prints a personal access token once; only its hash is kept.
func tokenCreateCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	email := fs.String("user", "", "the person the token acts for (email)")
	name := fs.String("name", "", "what the token is for, e.g. 'deploy script'")
	scopeList := fs.String("scopes", "", "comma-separated scopes, within the person's role (default: all the role allows)")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	u, _, err := st.UserByEmail(ctx, *email)
	if errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("no account with the email %q", *email)
	}
	if err != nil {
		return err
	}
	var scopes []policy.Scope
	for _, s := range strings.Split(*scopeList, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, policy.Scope(s))
		}
	}
	secret, _, err := services.New(st, systemClock{}, nil).Identity.CreateToken(ctx, u, *name, scopes)
	if e, ok := engine.AsError(err); ok {
		return errors.New(refusal.Sentence(locales.For(u.Lang), time.UTC, e))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n\nThis is the only time the token is shown. It acts as %s (%s): send it as\n"+
		"Authorization: Bearer <token>\n", secret, u.Name, u.Role)
	return nil
}
