package metrics

import "math"

// lookupUser returns user's row of s (NaN figures when s has none).
func lookupUser(s *Summary, user string) UserSummary {
	for _, u := range s.Users {
		if u.User == user {
			return u
		}
	}
	return UserSummary{User: user, Attainment: math.NaN(), TTFTP99: math.NaN(), DemandShare: math.NaN()}
}
