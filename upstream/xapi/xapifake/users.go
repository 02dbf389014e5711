package xapifake

import (
	"net/http"
	"strconv"
	"strings"
)

// usersBy is GET /2/users/by?usernames=... (at most 100).
func (s *Server) usersBy(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpUsersBy) {
		return
	}
	s.lookup(w, splitComma(r.URL.Query().Get("usernames")), "usernames", func(v string) *User {
		return s.users[s.byName[strings.ToLower(v)]]
	})
}

// usersByID is GET /2/users?ids=... (at most 100).
func (s *Server) usersByID(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpUsers) {
		return
	}
	s.lookup(w, splitComma(r.URL.Query().Get("ids")), "ids", func(v string) *User { return s.users[v] })
}

func (s *Server) lookup(w http.ResponseWriter, keys []string, param string, find func(string) *User) {
	if len(keys) == 0 || len(keys) > 100 {
		writeProblem(w, http.StatusBadRequest, Problem{Title: "Invalid Request", Detail: "The `" + param + "` query parameter value must have between 1 and 100 items.",
			Type: "https://api.twitter.com/2/problems/invalid-request"})
		return
	}
	s.mu.Lock()
	var data []User
	var errs []Problem
	for _, k := range keys {
		if u := find(k); u != nil {
			data = append(data, *u)
			continue
		}
		what := "usernames"
		if param == "ids" {
			what = "ids"
		}
		errs = append(errs, Problem{Value: k, Detail: "Could not find user with " + what + ": [" + k + "].", Title: "Not Found Error",
			ResourceType: "user", Parameter: param, ResourceID: k, Type: "https://api.twitter.com/2/problems/resource-not-found"})
	}
	s.mu.Unlock()
	body := map[string]any{}
	if len(data) > 0 {
		body["data"] = data
	}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, http.StatusOK, body)
}

// following is GET /2/users/:id/following with max_results (1 to 1000,
// default 100) and pagination_token.
func (s *Server) following(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpFollowing) {
		return
	}
	q := r.URL.Query()
	max := 100
	if v := q.Get("max_results"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeProblem(w, http.StatusBadRequest, Problem{Title: "Invalid Request", Detail: "The `max_results` query parameter value [" + v + "] is not between 1 and 1000",
				Type: "https://api.twitter.com/2/problems/invalid-request"})
			return
		}
		max = n
	}
	from := 0
	if t := q.Get("pagination_token"); t != "" {
		from, _ = strconv.Atoi(strings.TrimPrefix(t, "page"))
	}
	s.mu.Lock()
	u := s.users[r.PathValue("id")]
	if u == nil {
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"errors": []Problem{{Value: r.PathValue("id"), Detail: "Could not find user with id: [" + r.PathValue("id") + "].",
			Title: "Not Found Error", ResourceType: "user", Parameter: "id", ResourceID: r.PathValue("id"), Type: "https://api.twitter.com/2/problems/resource-not-found"}}})
		return
	}
	ids := u.FollowingIDs
	from = min(from, len(ids))
	end := min(from+max, len(ids))
	var data []User
	for _, id := range ids[from:end] {
		if f := s.users[id]; f != nil {
			data = append(data, *f)
		}
	}
	s.mu.Unlock()
	meta := map[string]any{"result_count": len(data)}
	if end < len(ids) {
		meta["next_token"] = "page" + strconv.Itoa(end)
	}
	body := map[string]any{"meta": meta}
	if len(data) > 0 {
		body["data"] = data
	}
	writeJSON(w, http.StatusOK, body)
}

func splitComma(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
