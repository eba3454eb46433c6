package clienttest

import (
	"strings"
	"testing"
)

func TestNewServerServesFake(t *testing.T) {
	srv := NewServer(t, NewFake())
	resp, err := srv.Client().Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("GET /healthz: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
}
