package xapi

import (
	"fmt"
	"strings"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
)

// userFields are the User fields a `user` observation needs.
const userFields = "user.fields=username,name,description,profile_image_url,profile_banner_url,location,url,entities,verified,verified_type,public_metrics,pinned_tweet_id,protected"

// userObs maps a User object to a `user` observation (CONTRACT.md section 3).
// The API knows no categories; an account it serves is not suspended (a
// suspended one comes back as an error of the lookup). The handle keeps the
// platform's spelling: ingest keys it, payloads show it.
func userObs(u *apiUser) protocol.UserObs {
	o := protocol.UserObs{
		ID: u.ID, Handle: u.Username, Name: u.Name, Bio: u.Description, Avatar: u.ProfileImageURL,
		BannerURL: strOrNil(u.ProfileBannerURL), Location: strOrNil(u.Location), Website: strOrNil(website(u)),
		Followers: u.PublicMetrics.FollowersCount, Following: u.PublicMetrics.FollowingCount,
		PinnedPost: []string{}, Categories: []string{},
	}
	v := verification(u)
	o.Verified, o.VerificationType = v.IsVerified, v.Type
	if u.PinnedTweetID != "" {
		o.PinnedPost = []string{u.PinnedTweetID}
	}
	return o
}

// website is the profile link as the person typed it: the expanded form of
// the t.co link when the entities carry it.
func website(u *apiUser) string {
	for _, x := range u.Entities.URL.URLs {
		if x.URL == u.URL && x.ExpandedURL != "" {
			return x.ExpandedURL
		}
	}
	return u.URL
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// encodeUser is one `user` ingest line.
func encodeUser(u *apiUser) ([]byte, error) {
	if !protocol.ValidNumericID(u.ID) || !protocol.ValidHandle(strings.ToLower(u.Username)) {
		return nil, fmt.Errorf("xapi: bad user %q/%q", u.ID, u.Username)
	}
	o := userObs(u)
	return upstream.Encode(protocol.KindUser, &o)
}

// encodeFollowing is one `following` ingest line: handle's complete list.
func encodeFollowing(handle string, users []apiUser) ([]byte, error) {
	o := protocol.FollowingObs{Handle: handle, Users: make([]protocol.FollowUser, 0, len(users))}
	for i := range users {
		u := &users[i]
		if u.ID == "" {
			continue
		}
		name, bio := u.Name, u.Description
		fl, fg, pr := u.PublicMetrics.FollowersCount, u.PublicMetrics.FollowingCount, u.Protected
		o.Users = append(o.Users, protocol.FollowUser{ID: u.ID, Handle: strings.ToLower(u.Username), Name: &name, Bio: &bio,
			Followers: &fl, Following: &fg, Protected: &pr})
	}
	return upstream.Encode(protocol.KindFollowing, &o)
}
