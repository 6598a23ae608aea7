package envtestcompat

import "fakekube/go/fakekubeenv"

// envtest's server runs no controllers; neither does this one.
func fakekubeEnvironment() fakekubeenv.Environment {
	return fakekubeenv.Environment{NoControllers: true}
}
