package launchpad

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	json "github.com/goccy/go-json"
)

// The JSON-RPC 2.0 shapes of Solana's RPC (solana.com/docs/rpc).

type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// rpcMessage is any message of the socket: an answer (id, result or
// error) or a notification (method, params).
type rpcMessage struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	Method string          `json:"method"`
	Params *struct {
		Result struct {
			Context struct {
				Slot uint64 `json:"slot"`
			} `json:"context"`
			Value logsValue `json:"value"`
		} `json:"result"`
		Subscription uint64 `json:"subscription"`
	} `json:"params"`
}

// logsValue is a logsNotification's value.
type logsValue struct {
	Signature string          `json:"signature"`
	Err       json.RawMessage `json:"err"` // null when the transaction succeeded
	Logs      []string        `json:"logs"`
}

func failed(err json.RawMessage) bool {
	return len(err) > 0 && !bytes.Equal(bytes.TrimSpace(err), []byte("null"))
}

// signatureInfo is one item of getSignaturesForAddress.
type signatureInfo struct {
	Signature string          `json:"signature"`
	Slot      uint64          `json:"slot"`
	Err       json.RawMessage `json:"err"`
	BlockTime *int64          `json:"blockTime"`
}

// transaction is the part of getTransaction's result the connector reads.
type transaction struct {
	Slot      uint64 `json:"slot"`
	BlockTime *int64 `json:"blockTime"`
	Meta      *struct {
		Err         json.RawMessage `json:"err"`
		LogMessages []string        `json:"logMessages"`
	} `json:"meta"`
}

// call does one JSON-RPC request over HTTP and decodes its result.
func call(ctx context.Context, hc *http.Client, url, method string, params []any, out any) error {
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: 1, Method: method, Params: params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", method, resp.StatusCode)
	}
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if m.Error != nil {
		return m.Error
	}
	if len(m.Result) == 0 {
		return errors.New(method + ": no result")
	}
	return json.Unmarshal(m.Result, out)
}

// ErrNotNotification is a socket message that is not a logsNotification.
var ErrNotNotification = errors.New("launchpad: not a logsNotification")

// DecodeNotification reads a logsNotification message: the transaction's
// signature, whether it failed, and its log lines.
func DecodeNotification(msg []byte) (signature string, failedTx bool, logs []string, err error) {
	var m rpcMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return "", false, nil, err
	}
	if m.Method != "logsNotification" || m.Params == nil {
		return "", false, nil, ErrNotNotification
	}
	v := &m.Params.Result.Value
	return v.Signature, failed(v.Err), v.Logs, nil
}
