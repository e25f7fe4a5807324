package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What the transport answers a client that gets the protocol wrong, in
// JSON-RPC's words where the SDK answers in plain HTTP. Studio's endpoint
// speaks the initialize handshake's era (MCP 2025-11-25 and earlier): it
// is stateful, since a person's key keeps its taint in its session, so it
// cannot serve 2026-07-28's stateless requests.

// methodDiscover is 2026-07-28's probe of a server's era.
const methodDiscover = "server/discover"

// rpcCall is what the guard reads of a JSON-RPC message.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// guardProtocol reads the POSTed message and answers before the SDK:
//   - server/discover is method not found (-32601), as a server of the
//     handshake's era answers it, so that clients that probe with it first
//     (mcp-go v1.6.0 with its defaults) fall back to initialize; the SDK's
//     own answer, a discovery listing only handshake versions, made them
//     give up;
//   - a request without Mcp-Session-Id that is not initialize is a 400
//     (the SDK opened a new session for it and answered 200);
//
// and turns the SDK's plain-text 400 for a method it does not know into
// JSON-RPC's -32601. It answers false when it wrote the answer.
func guardProtocol(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, bool) {
	if r.Method != http.MethodPost {
		return w, true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	r.Body.Close()
	if err != nil {
		http.Error(w, "cannot read the request", http.StatusBadRequest)
		return w, false
	}
	if len(body) > MaxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return w, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var call rpcCall
	if json.Unmarshal(body, &call) != nil || call.Method == "" {
		return w, true // not one message: the SDK refuses it in its words
	}
	isCall := len(call.ID) > 0 && string(call.ID) != "null"
	switch {
	case call.Method == methodDiscover:
		writeRPCError(w, http.StatusOK, call.ID, jsonrpc.CodeMethodNotFound,
			"server/discover: this server speaks MCP 2025-11-25 and earlier: send initialize")
		return w, false
	case r.Header.Get("Mcp-Session-Id") == "" && call.Method != "initialize" && isCall:
		writeRPCError(w, http.StatusBadRequest, call.ID, jsonrpc.CodeInvalidRequest,
			"no Mcp-Session-Id header: send initialize first, then its session's id on every request")
		return w, false
	case isCall:
		return &unknownMethod{ResponseWriter: w, id: call.ID}, true
	}
	return w, true
}

// notHandled is how the SDK's plain-text answer to an unknown method
// begins (its jsonrpc2.ErrNotHandled); TestMCPProtocolAnswers notices if
// it changes.
const notHandled = "JSON RPC not handled"

// unknownMethod holds back a 400 from the SDK until its text shows whether
// it is the refusal of an unknown method, answered then as JSON-RPC's
// -32601 for the request's id; every other answer passes through as it is
// written.
type unknownMethod struct {
	http.ResponseWriter
	id       json.RawMessage
	held     bool
	heldBody bytes.Buffer
}

func (u *unknownMethod) WriteHeader(status int) {
	if status == http.StatusBadRequest {
		u.held = true
		return
	}
	u.ResponseWriter.WriteHeader(status)
}

func (u *unknownMethod) Write(b []byte) (int, error) {
	if u.held {
		return u.heldBody.Write(b)
	}
	return u.ResponseWriter.Write(b)
}

func (u *unknownMethod) Flush() {
	if !u.held {
		http.NewResponseController(u.ResponseWriter).Flush()
	}
}

func (u *unknownMethod) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// finish writes what was held back.
func (u *unknownMethod) finish() {
	if !u.held {
		return
	}
	text := u.heldBody.String()
	if strings.HasPrefix(text, notHandled) {
		u.Header().Del("Content-Length")
		writeRPCError(u.ResponseWriter, http.StatusOK, u.id, jsonrpc.CodeMethodNotFound, strings.TrimSpace(text))
		return
	}
	u.ResponseWriter.WriteHeader(http.StatusBadRequest)
	u.ResponseWriter.Write(u.heldBody.Bytes())
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg}})
}
