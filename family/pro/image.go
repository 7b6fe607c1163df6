package pro

import "strings"

// ImageRepository is the Docker Hub repository of SWE-bench Pro's instance images (the harness's
// --dockerhub_username jefzda).
const ImageRepository = "jefzda/sweap-images"

// maxTagLength is Docker's limit on a tag, at which the harness cuts the names it makes.
const maxTagLength = 128

// elementSpecial is the one element-hq/element-web instance whose image keeps the full
// repository name and the -vnan suffix.
const elementSpecial = "instance_element-hq__element-web-ec0f940ef0e8e3b61078f145f34dc40d1938e6c5-vnan"

// DockerHubTag returns the image tag of an instance as the harness names it when a row has no
// dockerhub_tag (helper_code/image_uri.py): "{owner}.{name}-{instance id without instance_}",
// lower-cased owner and name, the "-vnan" suffix dropped, element-hq/element-web's images under
// "element" (but for one instance), cut at 128 characters.
func DockerHubTag(instanceID, repo string) string {
	owner, name, _ := strings.Cut(strings.ToLower(repo), "/")
	hsh := strings.ReplaceAll(instanceID, "instance_", "")
	lower := strings.ToLower(repo)
	switch {
	case instanceID == elementSpecial:
		name = "element-web"
	case strings.Contains(lower, "element-hq") && strings.Contains(lower, "element-web"):
		name = "element"
		hsh = strings.TrimSuffix(hsh, "-vnan")
	default:
		hsh = strings.TrimSuffix(hsh, "-vnan")
	}
	return cutTag(owner + "." + name + "-" + hsh)
}

func cutTag(tag string) string {
	if len(tag) > maxTagLength {
		return tag[:maxTagLength]
	}
	return tag
}

// Image returns the image of a tag: jefzda/sweap-images:{tag}, the tag cut at 128 characters.
func Image(tag string) string { return ImageRepository + ":" + cutTag(tag) }
