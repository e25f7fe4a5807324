package apptest

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/policy"
)

// AddUserOn adds an account that is a member of the site siteID only.
func (a *App) AddUserOn(t *testing.T, siteID, email, name string, role policy.Role) engine.User {
	t.Helper()
	u := engine.User{ID: ids.New("user"), Email: email, Name: name, Role: role, SiteID: siteID, Lang: "en"}
	if err := a.Store.CreateUser(context.Background(), u, cheapHash(), Start); err != nil {
		t.Fatal(err)
	}
	return u
}
