package scheduler

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestHTTPServerDropsSlowClients checks that a client sending its body too
// slowly and a kept-alive connection left idle are both closed by the
// server, not held forever.
func TestHTTPServerDropsSlowClients(t *testing.T) {
	read := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.Copy(io.Discard, r.Body)
		read <- err
	})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h, httpTimeouts{header: time.Second, read: 200 * time.Millisecond, write: time.Second, idle: 200 * time.Millisecond})
	go srv.Serve(lis)
	defer srv.Close()

	t.Run("slow body", func(t *testing.T) {
		conn, err := net.Dial("tcp", lis.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc"); err != nil {
			t.Fatal(err)
		}
		// The rest of the body never comes: the handler's read must fail
		// instead of waiting for it.
		select {
		case err := <-read:
			if err == nil {
				t.Fatal("the handler read a body the client never finished sending")
			}
		case <-time.After(time.Minute):
			t.Fatal("the server still waits for a body the client never finishes")
		}
	})

	t.Run("idle connection", func(t *testing.T) {
		conn, err := net.Dial("tcp", lis.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		<-read
		// Send nothing more: the server closes the kept-alive connection.
		conn.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("idle connection: read %v, want EOF from the server closing it", err)
		}
	})
}
