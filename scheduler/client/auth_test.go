package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// TestWithToken checks that a client sends its token, and that the 401
// and 403 of a scheduler that checks tokens wrap api.ErrUnauthenticated
// and api.ErrForbidden.
func TestWithToken(t *testing.T) {
	file := auth.Line(auth.User{Name: "vic", Role: auth.Viewer}, "floe_vic") + "\n" +
		auth.Line(auth.User{Name: "olga", Role: auth.Operator}, "floe_olga") + "\n"
	users, err := auth.Parse(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	fake := clienttest.NewFake()
	srv := httptest.NewServer(rest.New(fake, rest.Options{Users: users}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	anonymous := client.New(srv.URL, nil)
	viewer, operator := anonymous.WithToken("floe_vic"), anonymous.WithToken("floe_olga")

	id, err := operator.SubmitFiles(ctx, writeJob(t, "\x00asm"), client.SubmitOptions{})
	if err != nil {
		t.Fatalf("submit as an operator: %v", err)
	}
	if _, err := viewer.Job(ctx, id); err != nil {
		t.Errorf("status as a viewer: %v", err)
	}
	tests := []struct {
		name string
		c    *client.Client
		want error
		msg  string
	}{
		{"no token", anonymous, api.ErrUnauthenticated, "needs a bearer token"},
		{"unknown token", anonymous.WithToken("floe_mallory"), api.ErrUnauthenticated, "does not know"},
		{"viewer", viewer, api.ErrForbidden, "token vic has role viewer"},
	}
	for _, tt := range tests {
		err := tt.c.Cancel(ctx, id)
		var e *client.Error
		if !errors.Is(err, tt.want) || !errors.As(err, &e) || !strings.Contains(e.Message, tt.msg) {
			t.Errorf("%s: cancel: %v, want an error wrapping %v with %q", tt.name, err, tt.want, tt.msg)
		}
	}
	if err := operator.Cancel(ctx, id); err != nil {
		t.Errorf("cancel as an operator: %v", err)
	}
}
