package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"studio/engine/services"
)

// siteAddCmd makes a site for a scripted install: `studio site add --name
// N --zone Z [--lang L] [--public-url URL | --host HOST]`, by the rules of
// the setup page.
func siteAddCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("site add", flag.ContinueOnError)
	name := fs.String("name", "", "the site's name")
	zone := fs.String("zone", "", "the site's IANA time zone, e.g. Europe/Istanbul")
	lang := fs.String("lang", "en", "the public site's language: en or tr")
	publicURL := fs.String("public-url", "", "the public site's base URL, e.g. https://news.example")
	host := fs.String("host", "", "the public site's host, served over HTTPS (--public-url https://HOST)")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	base := *publicURL
	if *host != "" {
		if base != "" {
			return errors.New("give --public-url or --host, not both")
		}
		base = "https://" + *host
	}
	site, err := services.New(st, systemClock{}, nil).Setup.AddSite(ctx, *name, base, *zone, *lang)
	if err != nil {
		return refused(err, "en")
	}
	fmt.Fprintf(stdout, "Added the site %s (%s) in %s.\n", site.Name, site.ID, site.TimeZone)
	return nil
}
