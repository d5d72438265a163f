package main

import (
	"fmt"
	"math/rand"
)

// The long tail of Pod shapes, mixed into the plain ones of gen.go now and then: volume sources
// beyond the four common ones, container fields no vector sets (probes of every kind, lifecycle,
// security contexts, envFrom, resize policies, odd quantities), and Pod-level fields
// (affinity, topology spread, DNS, readiness and scheduling gates, overhead). Every generator
// that builds a Pod, a pod template or a sidecar container meets them.

// oddQuantity: quantities whose canonical form Go's resource.Quantity rewrites ("1.5Gi" is
// "1536Mi", "1e3" is "1k", "0.1" is "100m") beside plain ones.
func oddQuantity(r *rand.Rand) string {
	return pick(r, []string{"1.5Gi", "1e3", "0.1", "1000m", "2Ki", "100M", "0.5Gi", "1", "128974848", "12e6", "1m"})
}

// oddVolume makes a volume with a less common source, or a common one with its rarer fields.
func oddVolume(r *rand.Rand, name string) obj {
	v := obj{"name": name}
	switch r.Intn(12) {
	case 0:
		ed := obj{"medium": pick(r, []string{"Memory", ""})}
		if chance(r, 0.7) {
			ed["sizeLimit"] = oddQuantity(r)
		}
		v["emptyDir"] = ed
	case 1:
		v["projected"] = obj{"defaultMode": []float64{420, 256, 511}[r.Intn(3)], "sources": list{
			obj{"serviceAccountToken": obj{"path": "token", "expirationSeconds": float64(3607), "audience": pick(r, []string{"vault", ""})}},
			obj{"configMap": obj{"name": "cm-" + name, "items": list{obj{"key": "k", "path": "p", "mode": float64(292)}}}},
			obj{"secret": obj{"name": "sec-" + name, "optional": chance(r, 0.5)}},
			obj{"downwardAPI": obj{"items": list{obj{"path": "labels", "fieldRef": obj{"fieldPath": "metadata.labels"}}}}},
		}[:1+r.Intn(4)]}
	case 2:
		v["downwardAPI"] = obj{"items": list{
			obj{"path": "cpu", "resourceFieldRef": obj{"containerName": pick(r, containerNms), "resource": "limits.cpu", "divisor": pick(r, []string{"1m", "1", "0"})}},
			obj{"path": "name", "fieldRef": obj{"apiVersion": "v1", "fieldPath": "metadata.name"}}}}
	case 3:
		v["persistentVolumeClaim"] = obj{"claimName": "pvc-" + name, "readOnly": chance(r, 0.5)}
	case 4:
		v["csi"] = obj{"driver": "secrets-store.csi.k8s.io", "readOnly": true,
			"volumeAttributes": obj{"secretProviderClass": "spc", "usePodIdentity": "false"}, "nodePublishSecretRef": obj{"name": "creds"}}
	case 5:
		v["ephemeral"] = obj{"volumeClaimTemplate": obj{"metadata": obj{"labels": obj{"type": "scratch"}},
			"spec": obj{"accessModes": list{"ReadWriteOnce"}, "storageClassName": "fast", "volumeMode": pick(r, []string{"Filesystem", "Block"}),
				"resources": obj{"requests": obj{"storage": oddQuantity(r)}}}}}
	case 6:
		v["nfs"] = obj{"server": "nfs.example.com", "path": "/exports/" + name, "readOnly": chance(r, 0.5)}
	case 7:
		cm := obj{"name": "cm-" + name, "defaultMode": float64(420)}
		if chance(r, 0.6) {
			cm["items"] = list{obj{"key": "app.conf", "path": "conf/app.conf"}}
		}
		if chance(r, 0.4) {
			cm["optional"] = true
		}
		v["configMap"] = cm
	case 8:
		v["secret"] = obj{"secretName": "sec-" + name, "defaultMode": float64(256), "items": list{obj{"key": "tls.crt", "path": "tls.crt", "mode": float64(384)}}}
	case 9:
		v["hostPath"] = obj{"path": "/var/run/" + name, "type": pick(r, []string{"DirectoryOrCreate", "Socket", "File", ""})}
	case 10:
		v["image"] = obj{"reference": pick(r, images), "pullPolicy": pick(r, []string{"IfNotPresent", "Always"})}
	default:
		v["configMap"] = obj{"name": "cm-" + name}
		v["secret"] = obj{"secretName": "sec-" + name} // two sources: upstream decodes both
	}
	return v
}

func oddProbe(r *rand.Rand) obj {
	p := obj{}
	switch r.Intn(5) {
	case 0:
		p["httpGet"] = obj{"path": "/healthz", "port": pick2(r, float64(8080), "http"), "scheme": pick(r, []string{"HTTP", "HTTPS"}),
			"httpHeaders": list{obj{"name": "X-Probe", "value": "1"}}}
	case 1:
		p["tcpSocket"] = obj{"port": float64(9000), "host": "127.0.0.1"}
	case 2:
		p["grpc"] = obj{"port": float64(9090), "service": pick(r, []string{"health", ""})}
	default:
		p["exec"] = obj{"command": list{"cat", "/tmp/healthy"}}
	}
	for _, k := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
		if chance(r, 0.3) {
			p[k] = float64(1 + r.Intn(10))
		}
	}
	if chance(r, 0.1) {
		p["terminationGracePeriodSeconds"] = float64(5)
	}
	return p
}

// containerExtras sets some of the container fields that the plain generator leaves out.
func containerExtras(r *rand.Rand, c obj) {
	if !chance(r, 0.35) {
		return
	}
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if chance(r, 0.2) {
			c[k] = oddProbe(r)
		}
	}
	if chance(r, 0.15) {
		lc := obj{}
		if chance(r, 0.5) {
			lc["postStart"] = obj{"exec": obj{"command": list{"/bin/sh", "-c", "echo hi"}}}
		}
		lc["preStop"] = pick2(r, obj{"sleep": obj{"seconds": float64(5)}}, obj{"httpGet": obj{"path": "/stop", "port": float64(80)}})
		c["lifecycle"] = lc
	}
	if chance(r, 0.2) {
		sc := obj{"runAsNonRoot": true, "allowPrivilegeEscalation": false}
		if chance(r, 0.5) {
			sc["runAsUser"] = float64(1000 + r.Intn(3))
		}
		if chance(r, 0.4) {
			sc["capabilities"] = obj{"add": list{"NET_ADMIN"}, "drop": list{"ALL"}}
		}
		if chance(r, 0.3) {
			sc["seccompProfile"] = obj{"type": pick(r, []string{"RuntimeDefault", "Unconfined"})}
		}
		if chance(r, 0.1) {
			sc["privileged"] = true
		}
		c["securityContext"] = sc
	}
	if chance(r, 0.2) {
		c["envFrom"] = list{obj{"configMapRef": obj{"name": "cm-env"}, "prefix": pick(r, []string{"CFG_", ""})},
			obj{"secretRef": obj{"name": "sec-env", "optional": true}}}[:1+r.Intn(2)]
	}
	if chance(r, 0.25) {
		var env list
		switch r.Intn(3) {
		case 0:
			env = list{obj{"name": "PASSWORD", "valueFrom": obj{"secretKeyRef": obj{"name": "db", "key": "password", "optional": chance(r, 0.5)}}}}
		case 1:
			env = list{obj{"name": "CONF", "valueFrom": obj{"configMapKeyRef": obj{"name": "cm", "key": "conf"}}}}
		default:
			env = list{obj{"name": "MEM", "valueFrom": obj{"resourceFieldRef": obj{"resource": "limits.memory", "divisor": pick(r, []string{"1Mi", "1"})}}}}
		}
		c["env"] = append(asList(c["env"]), env...)
	}
	if chance(r, 0.15) {
		c["ports"] = list{obj{"name": "metrics", "containerPort": float64(9100), "protocol": pick(r, []string{"TCP", "UDP", "SCTP"})},
			obj{"containerPort": float64(53), "hostPort": float64(53), "hostIP": "0.0.0.0", "protocol": "UDP"}}[:1+r.Intn(2)]
	}
	if chance(r, 0.1) {
		c["resizePolicy"] = list{obj{"resourceName": "cpu", "restartPolicy": pick(r, []string{"NotRequired", "RestartContainer"})}}
	}
	if chance(r, 0.2) {
		res := asMap(c["resources"])
		if res == nil {
			res = obj{}
		}
		kind := pick(r, []string{"requests", "limits"})
		m := asMap(res[kind])
		if m == nil {
			m = obj{}
		}
		m[pick(r, []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu"})] = oddQuantity(r)
		res[kind] = m
		c["resources"] = res
	}
	if chance(r, 0.1) {
		c["workingDir"] = "/srv"
		c["args"] = list{"--port", "8080", "$(POD_NAME)"}
	}
	if chance(r, 0.05) {
		c["stdin"], c["tty"] = true, true
	}
	if chance(r, 0.1) {
		c["terminationMessagePolicy"] = "FallbackToLogsOnError"
		c["terminationMessagePath"] = "/tmp/term"
	}
	if chance(r, 0.15) {
		m := obj{"name": pick(r, volumeNames), "mountPath": "/mnt/" + pick(r, volumeNames)}
		switch r.Intn(3) {
		case 0:
			m["subPath"] = "sub/dir"
		case 1:
			m["mountPropagation"] = pick(r, []string{"HostToContainer", "None", "Bidirectional"})
		default:
			m["readOnly"] = true
			m["recursiveReadOnly"] = pick(r, []string{"IfPossible", "Enabled", "Disabled"})
		}
		c["volumeMounts"] = append(asList(c["volumeMounts"]), m)
	}
}

// podSpecExtras sets some of the Pod-level fields the plain generator leaves out.
func podSpecExtras(r *rand.Rand, spec obj) {
	if !chance(r, 0.35) {
		return
	}
	if chance(r, 0.25) {
		aff := obj{}
		if chance(r, 0.6) {
			aff["nodeAffinity"] = obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{"nodeSelectorTerms": list{
				obj{"matchExpressions": list{obj{"key": "topology.kubernetes.io/zone", "operator": "In", "values": list{"zone-a", "zone-c"}}}}}},
				"preferredDuringSchedulingIgnoredDuringExecution": list{obj{"weight": float64(10), "preference": obj{
					"matchExpressions": list{obj{"key": "disk", "operator": "Exists"}}}}}}
		}
		if chance(r, 0.5) {
			aff["podAntiAffinity"] = obj{"preferredDuringSchedulingIgnoredDuringExecution": list{obj{"weight": float64(100),
				"podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": obj{"app": "web"}},
					"matchLabelKeys": list{"pod-template-hash"}}}}}
		}
		spec["affinity"] = aff
	}
	if chance(r, 0.15) {
		spec["topologySpreadConstraints"] = list{obj{"maxSkew": float64(1), "topologyKey": "topology.kubernetes.io/zone",
			"whenUnsatisfiable": pick(r, []string{"DoNotSchedule", "ScheduleAnyway"}), "labelSelector": obj{"matchLabels": obj{"app": "web"}},
			"minDomains": float64(2), "nodeAffinityPolicy": "Honor"}}
	}
	if chance(r, 0.15) {
		sc := obj{"fsGroup": float64(2000), "runAsUser": float64(1000)}
		if chance(r, 0.5) {
			sc["sysctls"] = list{obj{"name": "net.core.somaxconn", "value": "1024"}}
		}
		if chance(r, 0.3) {
			sc["supplementalGroups"] = list{float64(3000)}
			sc["fsGroupChangePolicy"] = "OnRootMismatch"
		}
		spec["securityContext"] = sc
	}
	if chance(r, 0.1) {
		spec["hostAliases"] = list{obj{"ip": "10.0.0.1", "hostnames": list{"db.local", "cache.local"}}}
	}
	if chance(r, 0.1) {
		spec["dnsPolicy"] = pick(r, []string{"None", "ClusterFirstWithHostNet", "Default"})
		spec["dnsConfig"] = obj{"nameservers": list{"1.1.1.1"}, "searches": list{"svc.local"}, "options": list{obj{"name": "ndots", "value": "2"}, obj{"name": "edns0"}}}
	}
	if chance(r, 0.1) {
		spec["readinessGates"] = list{obj{"conditionType": pick(r, []string{"example.com/ready", "KruisePodReady"})}}
	}
	if chance(r, 0.1) {
		spec["priorityClassName"] = "high"
		spec["priority"] = float64(1000)
		spec["preemptionPolicy"] = pick(r, []string{"Never", "PreemptLowerPriority"})
	}
	if chance(r, 0.1) {
		spec["hostNetwork"] = true
		spec["hostPID"] = chance(r, 0.5)
	}
	if chance(r, 0.1) {
		spec["terminationGracePeriodSeconds"] = float64(r.Intn(120))
		spec["activeDeadlineSeconds"] = float64(600)
	}
	if chance(r, 0.1) {
		spec["os"] = obj{"name": "linux"}
		spec["runtimeClassName"] = "gvisor"
		spec["schedulerName"] = "custom-scheduler"
	}
	if chance(r, 0.1) {
		spec["hostname"] = "web-0"
		spec["subdomain"] = "web"
		spec["setHostnameAsFQDN"] = true
	}
	if chance(r, 0.1) {
		spec["enableServiceLinks"] = false
		spec["automountServiceAccountToken"] = false
		spec["shareProcessNamespace"] = true
	}
	if chance(r, 0.05) {
		spec["schedulingGates"] = list{obj{"name": "example.com/quota"}}
	}
	if chance(r, 0.05) {
		spec["overhead"] = obj{"cpu": oddQuantity(r), "memory": "120Mi"}
	}
	if chance(r, 0.05) {
		spec["nodeName"] = fmt.Sprintf("node-%d", r.Intn(3))
	}
	if chance(r, 0.05) {
		spec["resourceClaims"] = list{obj{"name": "gpu", "resourceClaimName": "gpu-claim"}}
	}
	if chance(r, 0.05) {
		spec["tolerations"] = append(asList(spec["tolerations"]), obj{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
			"effect": "NoExecute", "tolerationSeconds": float64(300)})
	}
}

// oddValues are what corrupt puts in place of a member: every JSON type, and numbers Go's typed
// decoders refuse for some fields (a fraction, past int32, past int64, negative).
var oddValues = []interface{}{"x", "1", "", 1.5, float64(2147483648), 1e20, float64(-1), true, false,
	obj{}, obj{"a": float64(1)}, list{}, list{"a"}, nil}

// corrupt gives a copy of v with one member or element, chosen at random, replaced by one of
// oddValues: the typed decoders' errors (upstream's: Go's message naming the field and its
// type) for every field of every kind, including the schemaless parts of Kruise's CRDs (pod
// templates, SidecarSet containers, WorkloadSpread patches) that reach a webhook as written.
// The top level's apiVersion and kind are kept: the review names the kind anyway.
func corrupt(r *rand.Rand, v interface{}) interface{} {
	c := deepCopyJSON(v)
	var slots []func(interface{})
	var walk func(x interface{}, top bool)
	walk = func(x interface{}, top bool) {
		switch t := x.(type) {
		case map[string]interface{}:
			for _, k := range sortedKeysAny(t) {
				k := k
				if !top || (k != "apiVersion" && k != "kind") {
					slots = append(slots, func(n interface{}) { t[k] = n })
				}
				walk(t[k], false)
			}
		case []interface{}:
			for i := range t {
				i := i
				slots = append(slots, func(n interface{}) { t[i] = n })
				walk(t[i], false)
			}
		}
	}
	walk(c, true)
	if len(slots) > 0 {
		slots[r.Intn(len(slots))](oddValues[r.Intn(len(oddValues))])
	}
	return c
}
