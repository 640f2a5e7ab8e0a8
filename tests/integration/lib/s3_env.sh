# Sourced by tests/integration/s3_*.sh: the S3 server of the tests.
#
# .ci/run starts Ceph's RADOS Gateway (scripts/start-ceph.sh) and exports
# DL_TEST_S3_ENDPOINT, DL_TEST_S3_ACCESS_KEY_ID, DL_TEST_S3_SECRET_ACCESS_KEY
# and DL_TEST_S3_REGION. Without a reachable server a test cannot show
# anything: in CI (CI=true) that is a failure, locally a skip that says why.
# Defines: s3_env (exports the AWS_* variables the CLI reads),
# s3_make_bucket NAME, s3_curl ARGS... (signed curl).
s3_unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $1 (in CI the object-store tests must run: .ci/run starts the server with scripts/start-ceph.sh)" >&2
		exit 1
	fi
	echo "SKIP: $1 (start one with: eval \"\$(scripts/start-ceph.sh start)\")" >&2
	exit 0
}
[ -n "${DL_TEST_S3_ENDPOINT:-}" ] || s3_unavailable "no S3 server: DL_TEST_S3_ENDPOINT is not set"
command -v curl >/dev/null || s3_unavailable "curl is not installed"
curl -s -o /dev/null --max-time 5 "$DL_TEST_S3_ENDPOINT/" ||
	s3_unavailable "the S3 server at $DL_TEST_S3_ENDPOINT does not answer"

s3_env() {
	export AWS_ENDPOINT_URL=$DL_TEST_S3_ENDPOINT
	export AWS_ACCESS_KEY_ID=$DL_TEST_S3_ACCESS_KEY_ID
	export AWS_SECRET_ACCESS_KEY=$DL_TEST_S3_SECRET_ACCESS_KEY
	export AWS_REGION=${DL_TEST_S3_REGION:-us-east-1}
	export AWS_ALLOW_HTTP=true
	unset AWS_PROFILE AWS_SESSION_TOKEN AWS_S3_ALLOW_UNSAFE_RENAME AWS_VIRTUAL_HOSTED_STYLE_REQUEST
}

# curl's --aws-sigv4 (7.88) leaves out x-amz-content-sha256, which RGW
# requires: send it (for an empty body) ourselves.
s3_curl() {
	curl -s --aws-sigv4 "aws:amz:${DL_TEST_S3_REGION:-us-east-1}:s3" \
		--user "$DL_TEST_S3_ACCESS_KEY_ID:$DL_TEST_S3_SECRET_ACCESS_KEY" \
		-H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$@"
}

s3_make_bucket() {
	local code
	code=$(s3_curl -o /dev/null -w '%{http_code}' -X PUT "$DL_TEST_S3_ENDPOINT/$1")
	[ "$code" = 200 ] || { echo "FAIL: creating bucket $1 answered HTTP $code" >&2; exit 1; }
}

# HTTP status of a GET of s3://BUCKET/KEY.
s3_status() {
	s3_curl -o /dev/null -w '%{http_code}' "$DL_TEST_S3_ENDPOINT/$1/$2"
}
