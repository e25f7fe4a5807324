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
	deploy := fs.Bool("deploy", false, "a deploy token: no person's, for the operator routes only (/api/admin/…, `schedules status --remote`)")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if *deploy {
		if *email != "" || *scopeList != "" {
			return errors.New("a deploy token acts for no person and has no scopes: give --deploy --name only")
		}
		secret, tok, err := services.New(st, systemClock{}, nil).Identity.CreateDeployToken(ctx, *name)
		if e, ok := engine.AsError(err); ok {
			return errors.New(refusal.Sentence(locales.For("en"), time.UTC, e))
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n\nThis is the only time the deploy token %s (%s) is shown. It reaches only the operator\n"+
			"routes (/api/admin/…): send it as Authorization: Bearer <token>, or set STUDIO_DEPLOY_TOKEN for\n"+
			"`studio schedules status --remote URL`. End it with `studio token revoke --deploy %s`.\n", secret, tok.ID, tok.Name, tok.ID)
		return nil
	}
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

// tokenRevokeCmd is `studio token revoke --deploy ID`: the deploy token
// stops working at once. (People end their own tokens in Your account.)
func tokenRevokeCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token revoke", flag.ContinueOnError)
	id := fs.String("deploy", "", "the deploy token's id (dep_…), as `token create --deploy` printed it")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if *id == "" {
		return errors.New("give --deploy ID, the deploy token's id; a person's own tokens end in Studio, under Your account")
	}
	err = services.New(st, systemClock{}, nil).Identity.RevokeDeployToken(ctx, *id)
	if errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("no deploy token %q that works", *id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "The deploy token %s no longer works.\n", *id)
	return nil
}
