package edge

import (
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// socialRoutes are the /social/* lookups (spec 2 "Lookups"): bare objects on
// success, {status: error, msg} on failure.
func (s *Server) socialRoutes(r *router.Router) {
	r.GET("/social/user/{username}", s.wrap(FamilySocial, s.socialUser))
}

type socialUserView struct {
	UserName       string `json:"userName"`
	Name           string `json:"name"`
	ID             string `json:"id"`
	ProfilePicture string `json:"profilePicture"`
	Followers      int64  `json:"followers"`
	Following      int64  `json:"following"`
	IsVerified     bool   `json:"isVerified"`
	Description    string `json:"description"`
}

func (s *Server) socialUser(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(pathValue(ctx, "username"))
	e, ok := s.deps.Dir.ByHandle(h)
	if !ok {
		return 0, nil, protocol.NotFound("no data for user " + h)
	}
	u := e.User
	return 200, socialUserView{UserName: u.Handle, Name: u.Name, ID: u.ID, ProfilePicture: u.Avatar,
		Followers: u.Followers, Following: u.Following, IsVerified: u.Verified, Description: u.Bio}, nil
}
