package edge

import (
	"context"
	"time"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/valyala/fasthttp"
)

type healthView struct {
	Status        string `json:"status"`
	DB            string `json:"db"`
	Listeners     int    `json:"listeners"`
	WSConnections int64  `json:"ws_connections"`
	// StoreBytes is alertd's addition to spec 1's object: the store's size
	// (null when it cannot be read).
	StoreBytes *int64 `json:"store_bytes"`
	// Cluster is set on a node of a cluster only (CONTRACT.md section 7).
	Cluster *clusterView `json:"cluster,omitempty"`
}

// clusterView is /health's `cluster`: the cluster's name and the live
// members' --cluster-addr.
type clusterView struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// Cluster is what /health reads of this node's cluster (engine/cluster.Node).
type Cluster interface {
	Name() string
	Members() []string
}

// health answers with the bare health object (spec 1), and 200 only while the store answers and the listener accepts.
func (s *Server) health(ctx *fasthttp.RequestCtx) {
	v := healthView{Status: "ok", DB: "ok", Listeners: s.Listeners(), WSConnections: s.WSConnections()}
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.deps.Store.Ping(pctx); err != nil {
		v.Status, v.DB = "degraded", "unavailable"
	}
	if s.deps.StoreBytes != nil {
		if n := s.deps.StoreBytes(pctx); n >= 0 {
			v.StoreBytes = &n
		}
	}
	if c := s.deps.Cluster; c != nil {
		v.Cluster = &clusterView{Name: c.Name(), Members: c.Members()}
		if v.Cluster.Members == nil {
			v.Cluster.Members = []string{}
		}
	}
	if v.Listeners == 0 {
		v.Status = "degraded"
	}
	status := 200
	if v.Status != "ok" {
		status = 503
	}
	httpkit.WriteJSON(ctx, status, v) // /health is outside /v1: a bare object
}
