package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/services"
	"studio/handlers/refusal"
	"studio/locales"
)

func userAddCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("user add", flag.ContinueOnError)
	email := fs.String("email", "", "email address (sign-in name)")
	name := fs.String("name", "", "full name")
	role := fs.String("role", "editor", "owner, admin, editor, author or contributor")
	lang := fs.String("lang", "en", "language: en or tr")
	siteID := fs.String("site", "", "the site's id the role is on (default: the only site)")
	fromStdin := fs.Bool("password-stdin", false, "read the password from standard input")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	r, ok := policy.ParseRole(*role)
	if !ok {
		return fmt.Errorf("unknown role %q (owner, admin, editor, author, contributor)", *role)
	}
	svc := services.New(st, systemClock{}, nil)
	site, err := siteOf(ctx, svc.Engine, *siteID)
	if err != nil {
		return err
	}
	// Someone with an account for another site joins this one as they are.
	switch u, err := svc.Identity.AddExisting(ctx, site.ID, *email, r); {
	case err == nil:
		fmt.Fprintf(stdout, "Added the account of %s <%s> as %s of %s; their password is unchanged.\n", u.Name, u.Email, u.Role, site.Name)
		return nil
	case !errors.Is(err, engine.ErrNotFound):
		return refused(err, *lang)
	}
	password, err := readPassword(stdin, stdout, *fromStdin)
	if err != nil {
		return err
	}
	u, err := svc.Identity.AddUser(ctx, site.ID, *email, *name, r, password, *lang)
	if err != nil {
		return refused(err, *lang)
	}
	fmt.Fprintf(stdout, "Added %s <%s> as %s of %s.\n", u.Name, u.Email, u.Role, site.Name)
	return nil
}

// siteOf is the site --site names (its id), or the only site there is when
// it names none.
func siteOf(ctx context.Context, eng *engine.Engine, id string) (engine.Site, error) {
	sites, err := eng.Sites(ctx)
	if err != nil {
		return engine.Site{}, err
	}
	var ids []string
	for _, s := range sites {
		if s.ID == id || (id == "" && len(sites) == 1) {
			return s, nil
		}
		ids = append(ids, s.ID+" ("+s.Name+")")
	}
	switch {
	case len(sites) == 0:
		return engine.Site{}, errors.New("there is no site yet: open the setup link `studio serve` prints, or run `studio site add` first")
	case id == "":
		return engine.Site{}, fmt.Errorf("--site: say which site the role is on: %s", strings.Join(ids, ", "))
	}
	return engine.Site{}, fmt.Errorf("--site: no site %q: %s", id, strings.Join(ids, ", "))
}

// readPassword reads one line from stdin for scripts, or prompts twice on a
// terminal without echo. There is never a default password.
func readPassword(stdin io.Reader, stdout io.Writer, fromStdin bool) (string, error) {
	if fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", errors.New("no terminal to ask for the password: use --password-stdin")
	}
	fmt.Fprint(stdout, "Password: ")
	first, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stdout)
	if err != nil {
		return "", err
	}
	fmt.Fprint(stdout, "Again: ")
	second, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stdout)
	if err != nil {
		return "", err
	}
	if string(first) != string(second) {
		return "", errors.New("the passwords differ")
	}
	return string(first), nil
}

// refused words err's refusals in lang, a line each (`--email: …`), or is
// err itself when it holds none.
func refused(err error, lang string) error {
	all := engine.Refusals(err)
	if len(all) == 0 {
		return err
	}
	lines := make([]string, len(all))
	for i, e := range all {
		lines[i] = refusal.Sentence(locales.For(lang), time.UTC, e)
		if flag, ok := cliFlags[e.Field]; ok {
			lines[i] = "--" + flag + ": " + lines[i]
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// cliFlags are the flags of the fields the engine refuses.
var cliFlags = map[string]string{"email": "email", "name": "name", "role": "role", "password": "password",
	"siteName": "name", "publicUrl": "public-url", "timeZone": "zone", "siteLang": "lang"}
