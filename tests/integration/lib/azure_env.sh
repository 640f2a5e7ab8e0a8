# Sourced by tests/integration/azure_*.sh: the Azure Blob server of the
# tests, Azurite.
#
# .ci/run starts Azurite (scripts/start-azurite.sh) and exports
# DL_TEST_AZURE_ENDPOINT (the account URL, path-style:
# http://127.0.0.1:10000/devstoreaccount1), DL_TEST_AZURE_ACCOUNT and
# DL_TEST_AZURE_KEY. Without a reachable server a test cannot show
# anything: in CI (CI=true) that is a failure, locally a skip that says why.
# Defines: az_env (exports the AZURE_* variables the CLI reads),
# az_curl METHOD PATH [QUERY] [curl args...] (curl with a Shared Key
# signature computed here with openssl, independently of the library),
# az_make_container NAME, az_status CONTAINER BLOB.
az_unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $1 (in CI the Azure tests must run: .ci/run starts Azurite with scripts/start-azurite.sh)" >&2
		exit 1
	fi
	echo "SKIP: $1 (start it with: eval \"\$(scripts/start-azurite.sh start)\")" >&2
	exit 0
}
[ -n "${DL_TEST_AZURE_ENDPOINT:-}" ] || az_unavailable "no Azure server: DL_TEST_AZURE_ENDPOINT is not set"
command -v curl >/dev/null || az_unavailable "curl is not installed"
command -v openssl >/dev/null || az_unavailable "openssl (to sign the tests' own requests) is not installed"
curl -s -o /dev/null --max-time 5 "$DL_TEST_AZURE_ENDPOINT?comp=list" ||
	az_unavailable "the Azure server at $DL_TEST_AZURE_ENDPOINT does not answer"

az_env() {
	export AZURE_STORAGE_ACCOUNT_NAME=$DL_TEST_AZURE_ACCOUNT
	export AZURE_STORAGE_ACCOUNT_KEY=$DL_TEST_AZURE_KEY
	export AZURE_STORAGE_ENDPOINT=$DL_TEST_AZURE_ENDPOINT
	export AZURE_ALLOW_HTTP=true
	unset AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_CONNECTION_STRING AZURE_STORAGE_USE_EMULATOR
}

# az_curl METHOD PATH [QUERY] [curl args...]: PATH is /container[/blob]
# (encoded), QUERY "a=1&b=2" (values without characters that need
# encoding). Signs with the Shared Key rules (docs/STORAGE.md): an empty
# body, x-ms-date, x-ms-version, the x-ms-* headers of AZ_XMS ("name:value"
# lines, also passed to curl) and If-None-Match from AZ_INM.
az_curl() {
	local method=$1 path=$2 query=${3:-}
	shift 3 2>/dev/null || shift $#
	local date base acct_path canon sts sig hexkey
	date=$(LC_ALL=C TZ=GMT date '+%a, %d %b %Y %H:%M:%S GMT')
	base=${DL_TEST_AZURE_ENDPOINT%/}
	acct_path=/${base#*://*/}
	[ "$acct_path" = "/$base" ] && acct_path=
	canon="/$DL_TEST_AZURE_ACCOUNT$acct_path$path"
	if [ -n "$query" ]; then
		canon+=$(printf '%s\n' "${query//&/$'\n'}" | LC_ALL=C sort | sed 's/=/:/' | sed 's/^/\\n/' | tr -d '\n')
		canon=$(printf '%b' "$canon")
	fi
	local xms hdrs=() l
	xms=$(printf 'x-ms-date:%s\nx-ms-version:2021-12-02\n%s' "$date" "${AZ_XMS:-}" | grep . | LC_ALL=C sort)
	while IFS= read -r l; do
		case "$l" in x-ms-date:* | x-ms-version:*) ;; *) hdrs+=(-H "${l%%:*}: ${l#*:}") ;; esac
	done <<<"$xms"
	[ -n "${AZ_INM:-}" ] && hdrs+=(-H "If-None-Match: $AZ_INM")
	sts=$(printf '%s\n\n\n\n\n\n\n\n\n%s\n\n\n%s\n%s' "$method" "${AZ_INM:-}" "$xms" "$canon")
	hexkey=$(printf '%s' "$DL_TEST_AZURE_KEY" | openssl base64 -d -A | od -An -tx1 | tr -d ' \n')
	sig=$(printf '%s' "$sts" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | openssl base64 -A)
	curl -s -X "$method" -H "x-ms-date: $date" -H "x-ms-version: 2021-12-02" \
		-H "Authorization: SharedKey $DL_TEST_AZURE_ACCOUNT:$sig" "${hdrs[@]}" "$@" "$base$path${query:+?$query}"
}

az_make_container() {
	local code
	code=$(az_curl PUT "/$1" "restype=container" -o /dev/null -w '%{http_code}' -H 'Content-Length: 0')
	[ "$code" = 201 ] || { echo "FAIL: creating container $1 answered HTTP $code" >&2; exit 1; }
}

# HTTP status of a HEAD of BLOB in CONTAINER.
az_status() {
	az_curl HEAD "/$1/$2" "" -o /dev/null -w '%{http_code}' -I
}

# az_sas PERMISSIONS: an account SAS token for the Blob service (version
# 2019-12-12, valid to 2030), signed here with openssl.
az_sas() {
	local hexkey sig
	hexkey=$(printf '%s' "$DL_TEST_AZURE_KEY" | openssl base64 -d -A | od -An -tx1 | tr -d ' \n')
	sig=$(printf '%s\n%s\nb\nsco\n\n2030-01-01T00:00:00Z\n\nhttps,http\n2019-12-12\n' "$DL_TEST_AZURE_ACCOUNT" "$1" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | openssl base64 -A |
		sed 's/+/%2B/g; s/\//%2F/g; s/=/%3D/g')
	printf 'sv=2019-12-12&ss=b&srt=sco&sp=%s&se=2030-01-01T00:00:00Z&spr=https,http&sig=%s' "$1" "$sig"
}
