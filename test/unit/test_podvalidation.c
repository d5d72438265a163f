/* k8s/podvalidation: Kubernetes' Pod template validation, a table per area. Each row is a v1
 * PodTemplateSpec and the errors upstream gives it, word for word, as a set (Go ranges over
 * maps): kruise's ConvertPodTemplateSpec then ValidatePodTemplateSpec at spec.template with
 * DefaultPodValidationOptions, asked of upstream's own code (kwh-oracle podtemplate) when the
 * row was written, with the pointers Go prints (their addresses differ per run) as the one
 * address this prints. Every row goes the way a workload handler takes a template: defaulted as a
 * copy to validate, then validated. Templates marked 'jq' are written with single quotes for
 * double ones. The checks after the tables pin what the tables cannot reach: Pod metadata
 * (ephemeral claim names, mirror Pods), the printers, the IP parser and the helpers around. */
#include <stdlib.h>
#include <string.h>

#include "k8s/defaults.h"
#include "k8s/fielderr.h"
#include "k8s/podvalidation.h"
#include "k8s/scheduling.h"
#include "k8s/validation.h"
#include "test/unit/test.h"
#include "util/buf.h"

struct pv_case {
    const char *name;
    bool jq;
    const char *tmpl;
    const char *want; /* the errors, one a line, or NULL for none */
};

static const struct pv_case volumes_cases[] = {
    {"no name, two sources", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'emptyDir':{},'hostPath':{'path':'/x'}}]}}",
     "spec.template.spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type\nspec.template.spec.volumes[0].name: Required value"},
    {"duplicate and bad names", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','emptyDir':{}},{'name':'a','emptyDir':{}},{'name':'A_b','emptyDir':{}}]}}",
     "spec.template.spec.volumes[1].name: Duplicate value: \"a\"\nspec.template.spec.volumes[2].name: Invalid value: \"A_b\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
    {"hostPath backsteps and type", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'h','hostPath':{'path':'/a/../b','type':'Dir'}}]}}",
     "spec.template.spec.volumes[0].hostPath.path: Invalid value: \"/a/../b\": must not contain '..'\nspec.template.spec.volumes[0].hostPath.type: Unsupported value: \"Dir\": supported values: \"\", \"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", \"FileOrCreate\", \"Socket\""},
    {"configMap modes and items", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'c','configMap':{'defaultMode':512,'items':[{'key':'','path':'../x','mode':-1},{'key':'k','path':'..a'}]}}]}}",
     "spec.template.spec.volumes[0].configMap.name: Required value\nspec.template.spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive\nspec.template.spec.volumes[0].configMap.items[0].key: Required value\nspec.template.spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not contain '..'\nspec.template.spec.volumes[0].configMap.items[0].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive\nspec.template.spec.volumes[0].configMap.items[1].path: Invalid value: \"..a\": must not start with '..'"},
    {"secret without name", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'s','secret':{'items':[{'key':'k','path':'/abs'}]}}]}}",
     "spec.template.spec.volumes[0].secret.secretName: Required value\nspec.template.spec.volumes[0].secret.items[0].path: Invalid value: \"/abs\": must be a relative path"},
    {"iscsi formats and name length", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'vvvvvvvvvvvvvvvvvvvv','iscsi':{'targetPortal':'tttttttttttttttttttttttttttttttttttttttttttttttttt','iqn':'iqn.2001-04.com.example','lun':256,'initiatorName':'bogus','chapAuthSession':true}}]}}",
     "spec.template.spec.volumes[0].iscsi.iqn: Invalid value: \"iqn.2001-04.com.example\": must be valid format\nspec.template.spec.volumes[0].iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive\nspec.template.spec.volumes[0].iscsi.secretRef: Required value\nspec.template.spec.volumes[0].iscsi.initiatorname: Invalid value: \"bogus\": must be valid format starting with iqn, eui, or naa\nspec.template.spec.volumes[0].name: Invalid value: \"vvvvvvvvvvvvvvvvvvvv\": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."},
    {"iscsi eui and naa", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','iscsi':{'targetPortal':'p','iqn':'eui.0200'}},{'name':'b','iscsi':{'targetPortal':'p','iqn':'naa.60003BAFA5B1A1C0A40FCFF1A5C0E8A0'}},{'name':'c','iscsi':{'targetPortal':'p','iqn':'xqn'}}]}}",
     "spec.template.spec.volumes[0].iscsi.iqn: Invalid value: \"eui.0200\": must be valid format\nspec.template.spec.volumes[2].iscsi.iqn: Invalid value: \"xqn\": must be valid format starting with iqn, eui, or naa"},
    {"fc targets and lun", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','fc':{'targetWWNs':['x','y'],'wwids':['z']}},{'name':'b','fc':{}},{'name':'c','fc':{'targetWWNs':['w'],'lun':300}}]}}",
     "spec.template.spec.volumes[0].fc.targetWWNs: Invalid value: []string{\"x\", \"y\"}: targetWWNs and wwids can not be specified simultaneously\nspec.template.spec.volumes[0].fc.lun: Required value: lun is required if targetWWNs is specified\nspec.template.spec.volumes[1].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both\nspec.template.spec.volumes[2].fc.lun: Invalid value: 300: must be between 0 and 255, inclusive"},
    {"nfs, glusterfs, rbd, cephfs, cinder", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','nfs':{'server':'s','path':'rel'}},{'name':'b','glusterfs':{}},{'name':'c','rbd':{}},{'name':'d','cephfs':{}},{'name':'e','cinder':{'secretRef':{}}}]}}",
     "spec.template.spec.volumes[0].nfs.path: Invalid value: \"rel\": must be an absolute path\nspec.template.spec.volumes[1].glusterfs.endpoints: Required value\nspec.template.spec.volumes[1].glusterfs.path: Required value\nspec.template.spec.volumes[2].rbd.monitors: Required value\nspec.template.spec.volumes[2].rbd.image: Required value\nspec.template.spec.volumes[3].cephfs.monitors: Required value\nspec.template.spec.volumes[4].cinder.volumeID: Required value\nspec.template.spec.volumes[4].cinder.secretRef.name: Required value"},
    {"flocker", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','flocker':{}},{'name':'b','flocker':{'datasetName':'x/y','datasetUUID':'u'}}]}}",
     "spec.template.spec.volumes[0].flocker: Required value: one of datasetName and datasetUUID is required\nspec.template.spec.volumes[1].flocker: Invalid value: \"resource\": datasetName and datasetUUID can not be specified simultaneously\nspec.template.spec.volumes[1].flocker.datasetName: Invalid value: \"x/y\": must not contain '/'"},
    {"quobyte registries", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','quobyte':{'registry':'a:1,b','volume':''}},{'name':'b','quobyte':{'registry':'r:1','tenant':'ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt','volume':'v'}},{'name':'c','quobyte':{'registry':'[::1]:80,[x]y:1','volume':'v'}}]}}",
     "spec.template.spec.volumes[0].quobyte.registry: Invalid value: \"a:1,b\": must be a host:port pair or multiple pairs separated by commas\nspec.template.spec.volumes[0].quobyte.volume: Required value\nspec.template.spec.volumes[1].quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters\nspec.template.spec.volumes[2].quobyte.registry: Invalid value: \"[::1]:80,[x]y:1\": must be a host:port pair or multiple pairs separated by commas"},
    {"flexVolume reserved options", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','flexVolume':{'options':{'kubernetes.io/x':'1','a.K8S.io/y':'2','ok':'3'}}}]}}",
     "spec.template.spec.volumes[0].flexVolume.driver: Required value\nspec.template.spec.volumes[0].flexVolume.options[kubernetes.io/x]: Invalid value: \"kubernetes.io/x\": kubernetes.io and k8s.io namespaces are reserved\nspec.template.spec.volumes[0].flexVolume.options[a.K8S.io/y]: Invalid value: \"a.K8S.io/y\": kubernetes.io and k8s.io namespaces are reserved"},
    {"azureDisk", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','azureDisk':{'diskURI':'http://x','kind':'Managed','cachingMode':'WriteBack'}},{'name':'b','azureDisk':{'diskName':'d','diskURI':'/x','kind':'Big'}}]}}",
     "spec.template.spec.volumes[0].azureDisk.diskName: Required value\nspec.template.spec.volumes[0].azureDisk.cachingMode: Unsupported value: \"WriteBack\": supported values: \"None\", \"ReadOnly\", \"ReadWrite\"\nspec.template.spec.volumes[0].azureDisk.diskURI: Unsupported value: \"http://x\": supported values: \"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}\"\nspec.template.spec.volumes[1].azureDisk.kind: Unsupported value: \"Big\": supported values: \"Dedicated\", \"Managed\", \"Shared\"\nspec.template.spec.volumes[1].azureDisk.diskURI: Unsupported value: \"/x\": supported values: \"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd\""},
    {"the rest of the in-tree sources", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','azureFile':{}},{'name':'b','vsphereVolume':{}},{'name':'c','photonPersistentDisk':{}},{'name':'d','portworxVolume':{}},{'name':'e','scaleIO':{'secretRef':{'name':'s'}}},{'name':'f','storageos':{'volumeName':'V','volumeNamespace':'N_s','secretRef':{}}},{'name':'g','gcePersistentDisk':{'partition':256}},{'name':'h','awsElasticBlockStore':{'volumeID':'v','partition':-1}},{'name':'i','gitRepo':{'directory':'/d'}}]}}",
     "spec.template.spec.volumes[0].azureFile.secretName: Required value\nspec.template.spec.volumes[0].azureFile.shareName: Required value\nspec.template.spec.volumes[1].vsphereVolume.volumePath: Required value\nspec.template.spec.volumes[2].photonPersistentDisk.pdID: Required value\nspec.template.spec.volumes[3].portworxVolume.volumeID: Required value\nspec.template.spec.volumes[4].scaleIO.gateway: Required value\nspec.template.spec.volumes[4].scaleIO.system: Required value\nspec.template.spec.volumes[4].scaleIO.volumeName: Required value\nspec.template.spec.volumes[5].storageos.volumeName: Invalid value: \"V\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.volumes[5].storageos.volumeNamespace: Invalid value: \"N_s\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.volumes[5].storageos.secretRef.name: Required value\nspec.template.spec.volumes[6].persistentDisk.pdName: Required value\nspec.template.spec.volumes[6].persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive\nspec.template.spec.volumes[7].awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive\nspec.template.spec.volumes[8].gitRepo.repository: Required value\nspec.template.spec.volumes[8].gitRepo.directory: Invalid value: \"/d\": must be a relative path"},
    {"csi driver and secret", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'a','csi':{'driver':'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'}},{'name':'b','csi':{'driver':'','nodePublishSecretRef':{'name':'Bad_Name'}}}]}}",
     "spec.template.spec.volumes[0].csi.driver: Too long: may not be more than 63 bytes\nspec.template.spec.volumes[1].csi.driver: Required value\nspec.template.spec.volumes[1].csi.driver: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.volumes[1].csi.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
    {"downwardAPI items", false,
     "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx\"}],\"volumes\":[{\"name\":\"d\",\"downwardAPI\":{\"items\":[{\"path\":\"p\",\"fieldRef\":{\"fieldPath\":\"metadata.labels['a b']\"}},{\"path\":\"q\",\"resourceFieldRef\":{\"resource\":\"limits.cpu\",\"divisor\":\"2\"}},{\"path\":\"\"},{\"path\":\"r\",\"fieldRef\":{\"apiVersion\":\"v2\",\"fieldPath\":\"metadata.name\"},\"resourceFieldRef\":{\"containerName\":\"main\",\"resource\":\"limits.memory\"}}]}}]}}",
     "spec.template.spec.volumes[0].downwardAPI.fieldRef: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.volumes[0].downwardAPI.resourceFieldRef.containerName: Required value\nspec.template.spec.volumes[0].downwardAPI.resourceFieldRef.divisor: Invalid value: \"limits.cpu\": only divisor's values 1m and 1 are supported with the cpu resource\nspec.template.spec.volumes[0].downwardAPI.path: Required value\nspec.template.spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required\nspec.template.spec.volumes[0].downwardAPI.fieldRef.fieldPath: Invalid value: \"metadata.name\": error converting fieldPath: unsupported pod version: v2\nspec.template.spec.volumes[0].downwardAPI: Invalid value: \"resource\": fieldRef and resourceFieldRef can not be specified simultaneously"},
    {"projected sources and paths", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'p','projected':{'sources':[{'secret':{'items':[{'key':'k','path':'a'}]}},{'configMap':{'name':'c','items':[{'key':'k','path':'a'}]},'downwardAPI':{'items':[{'path':'a','fieldRef':{'fieldPath':'metadata.uid'}}]}},{'serviceAccountToken':{'path':'','expirationSeconds':60}},{'serviceAccountToken':{'path':'../t','expirationSeconds':4294967297}}]}}]}}",
     "spec.template.spec.volumes[0].projected.sources[0].secret.name: Required value\nspec.template.spec.volumes[0].projected: Invalid value: \"c\": conflicting duplicate paths\nspec.template.spec.volumes[0].projected: Invalid value: \"a\": conflicting duplicate paths\nspec.template.spec.volumes[0].projected.sources[1]: Forbidden: may not specify more than 1 volume type per source\nspec.template.spec.volumes[0].projected.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes\nspec.template.spec.volumes[0].projected.path: Required value\nspec.template.spec.volumes[0].projected.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds\nspec.template.spec.volumes[0].projected.path: Invalid value: \"../t\": must not contain '..'"},
    {"cluster trust bundles", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'p','projected':{'sources':[{'clusterTrustBundle':{'name':'n','signerName':'a/b','path':'x'}},{'clusterTrustBundle':{'name':'a/b:c','labelSelector':{},'path':'x'}},{'clusterTrustBundle':{'signerName':'com/Bad_x','path':''}},{'clusterTrustBundle':{'path':'y'}}]}}]}}",
     "spec.template.spec.volumes[0].projected.sources[0].clusterTrustBundle: Invalid value: core.ClusterTrustBundleProjection{Name:(*string)(0xc000010000), SignerName:(*string)(0xc000010000), LabelSelector:(*v1.LabelSelector)(nil), Optional:(*bool)(nil), Path:\"x\"}: only one of name and signerName may be used\nspec.template.spec.volumes[0].projected.sources[1].clusterTrustBundle.name: Invalid value: \"a/b:c\": not a valid clustertrustbundlename: ClusterTrustBundle for signerName a/b must be named with prefix a:b:\nspec.template.spec.volumes[0].projected.sources[1].clusterTrustBundle.labelSelector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: labelSelector must be unset if name is specified\nspec.template.spec.volumes[0].projected: Invalid value: \"x\": conflicting duplicate paths\nspec.template.spec.volumes[0].projected.sources[2].clusterTrustBundle.signerName: Invalid value: \"com\": should be a domain with at least two segments separated by dots\nspec.template.spec.volumes[0].projected.sources[2].clusterTrustBundle.signerName: Invalid value: \"Bad_x\": validating label \"Bad_x\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.volumes[0].projected.sources[2].clusterTrustBundle.path: Required value\nspec.template.spec.volumes[0].projected.sources[3].clusterTrustBundle: Required value: either name or signerName must be specified"},
    {"ephemeral claim template", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'e','ephemeral':{'volumeClaimTemplate':{'metadata':{'name':'n','finalizers':[],'labels':{'a b':'c'}},'spec':{'accessModes':['ReadWriteOncePod','ReadWriteOnce','Bad'],'resources':{'requests':{'storage':'0'}},'volumeMode':'Raw','storageClassName':'Bad_SC','dataSource':{'kind':'Snap','name':'s'},'dataSourceRef':{'kind':'Snap','name':'t','apiGroup':'Bad_G','namespace':'ns'}}}}},{'name':'f','ephemeral':{}}]}}",
     "spec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.finalizers: Forbidden: cannot be set\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Unsupported value: \"Bad\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Invalid value: \"0\": must be greater than zero\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.storageClassName: Invalid value: \"Bad_SC\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", \"Filesystem\"\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.dataSource: Invalid value: \"Snap\": must be 'PersistentVolumeClaim' when referencing the default apiGroup\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.dataSourceRef.apiGroup: Invalid value: \"Bad_G\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec: Invalid value: field.Path{name:\"dataSource\", index:\"\", parent:(*field.Path)(0xc000010000)}: may not be specified when dataSourceRef.namespace is specified\nspec.template.spec.volumes[1].ephemeral.volumeClaimTemplate: Required value"},
    {"image volume", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'volumes':[{'name':'i','image':{'reference':'x','pullPolicy':'Sometimes'}},{'name':'j','image':{}}]}}",
     "spec.template.spec.volumes[0].image.pullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"\nspec.template.spec.volumes[1].image.pullPolicy: Required value"},
};

static const struct pv_case containers_cases[] = {
    {"no containers", true,
     "{'spec':{'containers':[]}}",
     "spec.template.spec.containers: Required value"},
    {"names, images and duplicates", true,
     "{'spec':{'containers':[{'name':'','image':'nginx'},{'name':'Main','image':''},{'name':'main','image':'nginx'},{'name':'main','image':'nginx'}],'initContainers':[{'name':'main','image':'nginx'},{'name':'init','image':'nginx'}]}}",
     "spec.template.spec.containers[0].name: Required value\nspec.template.spec.containers[1].name: Invalid value: \"Main\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.containers[1].image: Required value\nspec.template.spec.containers[3].name: Duplicate value: \"main\"\nspec.template.spec.initContainers[0].name: Duplicate value: \"main\""},
    {"termination message and pull policy", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','terminationMessagePolicy':'Bogus','imagePullPolicy':'Sometimes'}]}}",
     "spec.template.spec.containers[0].terminationMessagePolicy: Unsupported value: \"Bogus\": supported values: \"File\", \"FallbackToLogsOnError\"\nspec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\""},
    {"ports", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','ports':[{'containerPort':0,'protocol':'HTTP','name':'HTTP'},{'containerPort':70000,'hostPort':8080,'name':'a'},{'containerPort':80,'hostPort':8080,'name':'a','protocol':'TCP'}]}]}}",
     "spec.template.spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)\nspec.template.spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must contain at least one letter (a-z)\nspec.template.spec.containers[0].ports[0].containerPort: Required value\nspec.template.spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"\nspec.template.spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\nspec.template.spec.containers[0].ports[2].name: Duplicate value: \"a\"\nspec.template.spec.containers[0].ports[2].hostPort: Duplicate value: \"TCP//8080\""},
    {"init containers' host ports apart", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','ports':[{'containerPort':80,'hostPort':9}]}],'initContainers':[{'name':'i','image':'nginx','ports':[{'containerPort':80,'hostPort':9},{'containerPort':81,'hostPort':9}]}]}}",
     "spec.template.spec.initContainers[0].ports[1].hostPort: Duplicate value: \"TCP//9\""},
    {"env names and sources", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','env':[{'name':'1A'},{'name':''},{'name':'a','valueFrom':{}},{'name':'b','value':'v','valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}},{'name':'c','valueFrom':{'fieldRef':{'fieldPath':'spec.host'},'secretKeyRef':{'name':'s','key':'k'}}},{'name':'d','valueFrom':{'configMapKeyRef':{'key':'..'}}},{'name':'e','valueFrom':{'resourceFieldRef':{'resource':'limits.nvidia.com/gpu','divisor':'1Ki'}}},{'name':'f','valueFrom':{'fieldRef':{'fieldPath':'status.phase'}}}]}]}}",
     "spec.template.spec.containers[0].env[0].name: Invalid value: \"1A\": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')\nspec.template.spec.containers[0].env[1].name: Required value\nspec.template.spec.containers[0].env[2].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`\nspec.template.spec.containers[0].env[3].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty\nspec.template.spec.containers[0].env[4].valueFrom: Invalid value: \"\": may not have more than one field specified at a time\nspec.template.spec.containers[0].env[5].valueFrom.configMapKeyRef.name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.containers[0].env[5].valueFrom.configMapKeyRef.key: Invalid value: \"..\": must not be '..'\nspec.template.spec.containers[0].env[6].valueFrom.resourceFieldRef.resource: Unsupported value: \"limits.nvidia.com/gpu\": supported values: \"limits.cpu\", \"limits.ephemeral-storage\", \"limits.memory\", \"requests.cpu\", \"requests.ephemeral-storage\", \"requests.memory\"\nspec.template.spec.containers[0].env[7].valueFrom.fieldRef.fieldPath: Unsupported value: \"status.phase\": supported values: \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", \"status.podIPs\""},
    {"envFrom", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','envFrom':[{},{'prefix':'1x','configMapRef':{'name':''},'secretRef':{'name':'a-'}},{'secretRef':{'name':'x--'}}]}]}}",
     "spec.template.spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`\nspec.template.spec.containers[0].envFrom[1].prefix: Invalid value: \"1x\": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')\nspec.template.spec.containers[0].envFrom[1].configMapRef.name: Required value\nspec.template.spec.containers[0].envFrom: Invalid value: \"\": may not have more than one field specified at a time"},
    {"mounts", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','volumeMounts':[{'name':'v','mountPath':'/a','subPath':'/abs','subPathExpr':'x'},{'name':'missing','mountPath':'/a','mountPropagation':'Bidirectional'},{'name':'img','mountPath':'/b','subPath':'s','recursiveReadOnly':'Enabled','mountPropagation':'HostToContainer'},{'name':'','mountPath':'','recursiveReadOnly':'Bogus','mountPropagation':'Bogus'}]}],'volumes':[{'name':'v','emptyDir':{}},{'name':'img','image':{'reference':'r','pullPolicy':'Always'}}]}}",
     "spec.template.spec.containers[0].volumeMounts.subPath: Invalid value: \"/abs\": must be a relative path\nspec.template.spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: \"x\": subPathExpr and subPath are mutually exclusive\nspec.template.spec.containers[0].volumeMounts[1].name: Not found: \"missing\"\nspec.template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique\nspec.template.spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers\nspec.template.spec.containers[0].volumeMounts[2].subPath: Invalid value: \"s\": not allowed in image volume sources\nspec.template.spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true\nspec.template.spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified\nspec.template.spec.containers[0].volumeMounts[3].name: Required value\nspec.template.spec.containers[0].volumeMounts[3].name: Not found: \"\"\nspec.template.spec.containers[0].volumeMounts[3].mountPath: Required value\nspec.template.spec.containers[0].volumeMounts.mountPropagation: Unsupported value: \"Bogus\": supported values: \"Bidirectional\", \"HostToContainer\", \"None\"\nspec.template.spec.containers[0].volumeMounts.recursiveReadOnly: Unsupported value: \"Bogus\": supported values: \"Disabled\", \"Enabled\", \"IfPossible\""},
    {"devices", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','volumeMounts':[{'name':'p','mountPath':'/dev/a'}],'volumeDevices':[{'name':'p','devicePath':'/dev/a'},{'name':'v','devicePath':'/dev/../b'},{'name':'p','devicePath':''},{'name':'','devicePath':'/dev/a'}]}],'volumes':[{'name':'p','persistentVolumeClaim':{'claimName':'c'}},{'name':'v','emptyDir':{}}]}}",
     "spec.template.spec.containers[0].volumeMounts[0].name: Invalid value: \"p\": must not already exist in volumeDevices\nspec.template.spec.containers[0].volumeMounts[0].mountPath: Invalid value: \"/dev/a\": must not already exist as a path in volumeDevices\nspec.template.spec.containers[0].volumeDevices[0].name: Invalid value: \"p\": must not already exist in volumeMounts\nspec.template.spec.containers[0].volumeDevices[0].devicePath: Invalid value: \"/dev/a\": must not already exist as a path in volumeMounts\nspec.template.spec.containers[0].volumeDevices[1].name: Invalid value: \"v\": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode\nspec.template.spec.containers[0].volumeDevices[1].devicePath: Invalid value: \"/dev/../b\": can not contain backsteps ('..')\nspec.template.spec.containers[0].volumeDevices[2].name: Invalid value: \"p\": must be unique\nspec.template.spec.containers[0].volumeDevices[2].devicePath: Required value\nspec.template.spec.containers[0].volumeDevices[2].name: Invalid value: \"p\": must not already exist in volumeMounts\nspec.template.spec.containers[0].volumeDevices[3].name: Required value\nspec.template.spec.containers[0].volumeDevices[3].name: Not found: \"\"\nspec.template.spec.containers[0].volumeDevices[3].devicePath: Invalid value: \"/dev/a\": must be unique\nspec.template.spec.containers[0].volumeDevices[3].devicePath: Invalid value: \"/dev/a\": must not already exist as a path in volumeMounts"},
    {"restart policies", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','restartPolicy':'Always'}],'initContainers':[{'name':'i','image':'nginx','restartPolicy':'OnFailure','livenessProbe':{'exec':{'command':['x']}},'lifecycle':{}}]}}",
     "spec.template.spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers\nspec.template.spec.initContainers[0].restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"\nspec.template.spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always\nspec.template.spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"},
    {"ephemeral containers in a template", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'ephemeralContainers':[{'name':'main','image':' x','ports':[],'resources':{'limits':{}},'targetContainerName':'nope','volumeMounts':[{'name':'v','mountPath':'/m','subPath':'s'}],'resizePolicy':[{'resourceName':'cpu','restartPolicy':'NotRequired'}]}]}}",
     "spec.template.spec.ephemeralContainers[0].terminationMessagePolicy: Required value\nspec.template.spec.ephemeralContainers[0].volumeMounts[0].name: Not found: \"v\"\nspec.template.spec.ephemeralContainers[0].imagePullPolicy: Required value\nspec.template.spec.ephemeralContainers[0].image: Invalid value: \" x\": must not have leading or trailing whitespace\nspec.template.spec.ephemeralContainers[0].name: Duplicate value: \"main\"\nspec.template.spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"\nspec.template.spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container\nspec.template.spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container\nspec.template.spec.ephemeralContainers[0].resizePolicy: Forbidden: cannot be set for an Ephemeral Container\nspec.template.spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container\nspec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"},
    {"resize policy", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resizePolicy':[{'resourceName':'cpu','restartPolicy':'RestartContainer'},{'resourceName':'cpu','restartPolicy':''},{'resourceName':'gpu','restartPolicy':'X'}]}],'initContainers':[{'name':'i','image':'nginx','resizePolicy':[{'resourceName':'memory','restartPolicy':'NotRequired'}]}],'restartPolicy':'Never'}}",
     "spec.template.spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never'\nspec.template.spec.containers[0].resizePolicy[1]: Duplicate value: cpu\nspec.template.spec.containers[0].resizePolicy: Required value\nspec.template.spec.containers[0].resizePolicy: Invalid value: \"\": must be 'NotRequired' when `restartPolicy` is 'Never'\nspec.template.spec.containers[0].resizePolicy: Unsupported value: gpu: supported values: \"cpu\", \"memory\"\nspec.template.spec.containers[0].resizePolicy: Unsupported value: \"X\": supported values: \"NotRequired\", \"RestartContainer\"\nspec.template.spec.containers[0].resizePolicy: Invalid value: \"X\": must be 'NotRequired' when `restartPolicy` is 'Never'\nspec.template.spec.initContainers[0].resizePolicy: Invalid value: []core.ContainerResizePolicy{core.ContainerResizePolicy{ResourceName:\"memory\", RestartPolicy:\"NotRequired\"}}: must not be set for init containers"},
};

static const struct pv_case probes_cases[] = {
    {"handlers", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','livenessProbe':{},'readinessProbe':{'exec':{},'httpGet':{'port':80}},'startupProbe':{'tcpSocket':{'port':'HTTP'},'grpc':{'port':0}}}]}}",
     "spec.template.spec.containers[0].livenessProbe: Required value: must specify a handler type\nspec.template.spec.containers[0].readinessProbe.exec.command: Required value\nspec.template.spec.containers[0].readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type\nspec.template.spec.containers[0].startupProbe.tcpSocket.port: Invalid value: \"HTTP\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)\nspec.template.spec.containers[0].startupProbe.tcpSocket.port: Invalid value: \"HTTP\": must contain at least one letter (a-z)\nspec.template.spec.containers[0].startupProbe.grpc: Forbidden: may not specify more than 1 handler type"},
    {"httpGet details", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','livenessProbe':{'httpGet':{'path':'','port':70000,'scheme':'FTP','httpHeaders':[{'name':'bad header','value':'v'}]}}}]}}",
     "spec.template.spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive\nspec.template.spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\"\nspec.template.spec.containers[0].livenessProbe.httpGet.httpHeaders: Invalid value: \"bad header\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"},
    {"thresholds and grace", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','livenessProbe':{'exec':{'command':['x']},'successThreshold':2,'initialDelaySeconds':-1,'terminationGracePeriodSeconds':0},'readinessProbe':{'exec':{'command':['x']},'terminationGracePeriodSeconds':5,'failureThreshold':-3}}]}}",
     "spec.template.spec.containers[0].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0\nspec.template.spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0\nspec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1\nspec.template.spec.containers[0].readinessProbe.failureThreshold: Invalid value: -3: must be greater than or equal to 0\nspec.template.spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes"},
    {"lifecycle sleep", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','lifecycle':{'postStart':{'sleep':{'seconds':11}},'preStop':{'sleep':{'seconds':0},'exec':{'command':['x']}}}}],'terminationGracePeriodSeconds':10}}",
     "spec.template.spec.containers[0].lifecycle.postStart.sleep: Invalid value: 11: must be greater than 0 and less than terminationGracePeriodSeconds (10). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.\nspec.template.spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type"},
    {"sidecar probes", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'initContainers':[{'name':'s','image':'nginx','restartPolicy':'Always','startupProbe':{'grpc':{'port':70000},'successThreshold':3}}]}}",
     "spec.template.spec.initContainers[0].startupProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive\nspec.template.spec.initContainers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"},
};

static const struct pv_case resources_cases[] = {
    {"names", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resources':{'limits':{'foo':'1','requests.cpu':'1','example.com/':'1','Bad Name':'1','requests.example.com/x':'1','kubernetes.io/x':'1'}}}]}}",
     "spec.template.spec.containers[0].resources.limits[example.com/]: Invalid value: example.com/: name part must be non-empty\nspec.template.spec.containers[0].resources.limits[example.com/]: Invalid value: example.com/: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.containers[0].resources.limits[example.com/]: Invalid value: example.com/: doesn't follow extended resource name standard\nspec.template.spec.containers[0].resources.limits[Bad Name]: Invalid value: Bad Name: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.containers[0].resources.limits[Bad Name]: Invalid value: Bad Name: must be a standard resource for containers\nspec.template.spec.containers[0].resources.limits[requests.example.com/x]: Invalid value: requests.example.com/x: doesn't follow extended resource name standard\nspec.template.spec.containers[0].resources.limits[foo]: Invalid value: foo: must be a standard resource type or fully qualified\nspec.template.spec.containers[0].resources.limits[foo]: Invalid value: foo: must be a standard resource for containers\nspec.template.spec.containers[0].resources.limits[requests.cpu]: Invalid value: requests.cpu: must be a standard resource for containers"},
    {"values and integers", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resources':{'limits':{'cpu':'-1','nvidia.com/gpu':'0.5','pods':'1500m','example.com/x':'0.0001'},'requests':{'example.com/y':'3'}}}]}}",
     "spec.template.spec.containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\nspec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[pods]: Invalid value: pods: must be a standard resource for containers\nspec.template.spec.containers[0].resources.limits[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1500m\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/x]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"},
    {"requests against limits", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resources':{'limits':{'cpu':'1','nvidia.com/gpu':'2','hugepages-2Mi':'2Mi'},'requests':{'cpu':'2','nvidia.com/gpu':'1','hugepages-2Mi':'4Mi'}}}]}}",
     "spec.template.spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1\nspec.template.spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu limit of 2\nspec.template.spec.containers[0].resources.requests: Invalid value: \"4Mi\": must be equal to hugepages-2Mi limit of 2Mi"},
    {"claims", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resources':{'claims':[{'name':'gpu','request':'r'},{'name':'gpu'},{'name':'gpu','request':'r'},{'name':''},{'name':'none','request':'Bad'}]}}],'resourceClaims':[{'name':'gpu','resourceClaimName':'c'},{'name':'gpu','resourceClaimTemplateName':'t'},{'name':'x','resourceClaimName':'a','resourceClaimTemplateName':'b'},{'name':'','resourceClaimName':'Bad_Name'},{'name':'y'}]}}",
     "spec.template.spec.resourceClaims[1].name: Duplicate value: \"gpu\"\nspec.template.spec.resourceClaims[2]: Invalid value: core.PodResourceClaim{Name:\"x\", ResourceClaimName:(*string)(0xc000010000), ResourceClaimTemplateName:(*string)(0xc000010000)}: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified\nspec.template.spec.resourceClaims[3].name: Required value\nspec.template.spec.resourceClaims[3].resourceClaimName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.resourceClaims[4]: Invalid value: core.PodResourceClaim{Name:\"y\", ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`\nspec.template.spec.containers[0].resources.claims[1]: Duplicate value: \"gpu\"\nspec.template.spec.containers[0].resources.claims[2]: Duplicate value: \"gpu\"\nspec.template.spec.containers[0].resources.claims[3]: Required value\nspec.template.spec.containers[0].resources.claims[4].request: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.containers[0].resources.claims[4]: Not found: \"none\": must be one of the names in pod.spec.resourceClaims: gpu, x, y"},
    {"overhead", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'overhead':{'cpu':'-0.0001','pods':'1.5','foo':'1'}}}",
     "spec.template.spec.overhead.limits[cpu]: Invalid value: \"-1m\": must be greater than or equal to 0\nspec.template.spec.overhead.limits[pods]: Invalid value: pods: must be a standard resource for containers\nspec.template.spec.overhead.limits[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.overhead.limits[foo]: Invalid value: foo: must be a standard resource type or fully qualified\nspec.template.spec.overhead.limits[foo]: Invalid value: foo: must be a standard resource for containers"},
};

static const struct pv_case security_cases[] = {
    {"container ids, procMount, escalation", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'runAsUser':-1,'runAsGroup':2147483648,'procMount':'Unmasked','allowPrivilegeEscalation':false,'privileged':true,'capabilities':{'add':['CAP_SYS_ADMIN']}}}]}}",
     "spec.template.spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive\nspec.template.spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive\nspec.template.spec.containers[0].securityContext.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`\nspec.template.spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0xc000010000), Privileged:(*bool)(0xc000010000), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(0xc000010000), RunAsGroup:(*int64)(0xc000010000), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xc000010000), ProcMount:(*core.ProcMountType)(0xc000010000), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true\nspec.template.spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0xc000010000), Privileged:(*bool)(0xc000010000), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(0xc000010000), RunAsGroup:(*int64)(0xc000010000), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xc000010000), ProcMount:(*core.ProcMountType)(0xc000010000), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"},
    {"seccomp profiles", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'seccompProfile':{'type':'Localhost'}}},{'name':'b','image':'nginx','securityContext':{'seccompProfile':{'type':'Localhost','localhostProfile':'../p'}}},{'name':'d','image':'nginx','securityContext':{'seccompProfile':{}}}],'securityContext':{'seccompProfile':{'type':'RuntimeDefault','localhostProfile':'x'}}}}",
     "spec.template.spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost\nspec.template.spec.containers[1].securityContext.seccompProfile.localhostProfile: Invalid value: \"../p\": must not contain '..'\nspec.template.spec.containers[2].securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set\nspec.template.spec.securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:\"RuntimeDefault\", LocalhostProfile:(*string)(0xc000010000)}: can only be set when seccomp type is Localhost"},
    {"apparmor profiles", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'appArmorProfile':{'type':'Unconfined','localhostProfile':''}}},{'name':'b','image':'nginx','securityContext':{'appArmorProfile':{'type':'Localhost','localhostProfile':''}}},{'name':'d','image':'nginx','securityContext':{'appArmorProfile':{'type':'X'}}}],'securityContext':{'appArmorProfile':{'type':'Localhost','localhostProfile':' p'}}}}",
     "spec.template.spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: \"\": can only be set when AppArmor type is Localhost\nspec.template.spec.containers[1].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost\nspec.template.spec.containers[2].securityContext.appArmorProfile.type: Unsupported value: \"X\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"\nspec.template.spec.securityContext.appArmorProfile.localhostProfile: Invalid value: \" p\": must not be padded with whitespace"},
    {"windows options", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'windowsOptions':{'gmsaCredentialSpecName':'Bad_N','gmsaCredentialSpec':'','runAsUserName':'a\\\\b\\\\c'}}},{'name':'b','image':'nginx','securityContext':{'windowsOptions':{'runAsUserName':'.dom\\\\..'}}},{'name':'d','image':'nginx','securityContext':{'windowsOptions':{'runAsUserName':'u\\u0001'}}}]}}",
     "spec.template.spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: \"Bad_N\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: \"\": gmsaCredentialSpec cannot be an empty string\nspec.template.spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash\nspec.template.spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: \".dom\\\\..\": runAsUserName's Domain doesn't match the NetBios nor the DNS format\nspec.template.spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: \".dom\\\\..\": runAsUserName's User cannot contain only periods or spaces\nspec.template.spec.containers[2].securityContext.windowsOptions.runAsUserName: Invalid value: \"u\\x01\": runAsUserName cannot contain control characters"},
    {"pod security context", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','ports':[{'containerPort':80,'hostPort':81}]}],'hostPID':true,'shareProcessNamespace':true,'hostNetwork':true,'hostIPC':true,'securityContext':{'fsGroup':-1,'runAsUser':-2,'supplementalGroups':[1,-3],'fsGroupChangePolicy':'X','supplementalGroupsPolicy':'Y','seLinuxChangePolicy':'Z','sysctls':[{'name':'net.ipv4.ip_forward'},{'name':'kernel.shm_rmid_forced'},{'name':''},{'name':'Bad'},{'name':'net.ipv4.ip_forward'},{'name':'net/ipv4/conf/eth0.100/rp_filter'}]}}}",
     "spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true\nspec.template.spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive\nspec.template.spec.securityContext.runAsUser: Invalid value: -2: must be between 0 and 2147483647, inclusive\nspec.template.spec.securityContext.supplementalGroups[1]: Invalid value: -3: must be between 0 and 2147483647, inclusive\nspec.template.spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled\nspec.template.spec.securityContext.sysctls[0].name: Invalid value: \"net.ipv4.ip_forward\": may not be specified when 'hostNetwork' is true\nspec.template.spec.securityContext.sysctls[1].name: Invalid value: \"kernel.shm_rmid_forced\": may not be specified when 'hostIPC' is true\nspec.template.spec.securityContext.sysctls[2].name: Required value\nspec.template.spec.securityContext.sysctls[3].name: Invalid value: \"Bad\": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$\nspec.template.spec.securityContext.sysctls[4].name: Duplicate value: \"net.ipv4.ip_forward\"\nspec.template.spec.securityContext.sysctls[4].name: Invalid value: \"net.ipv4.ip_forward\": may not be specified when 'hostNetwork' is true\nspec.template.spec.securityContext.sysctls[5].name: Invalid value: \"net/ipv4/conf/eth0.100/rp_filter\": may not be specified when 'hostNetwork' is true\nspec.template.spec.securityContext.fsGroupChangePolicy: Unsupported value: \"X\": supported values: \"Always\", \"OnRootMismatch\"\nspec.template.spec.securityContext.supplementalGroupsPolicy: Unsupported value: \"Y\": supported values: \"Merge\", \"Strict\"\nspec.template.spec.securityContext.seLinuxChangePolicy: Unsupported value: \"Z\": supported values: \"MountOption\", \"Recursive\""},
    {"host users", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'procMount':'Unmasked'}}],'hostUsers':false,'hostNetwork':true,'hostPID':true}}",
     "spec.template.spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false\nspec.template.spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false"},
};

static const struct pv_case pod_cases[] = {
    {"restart and dns policy", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'restartPolicy':'Sometimes','dnsPolicy':'Bogus'}}",
     "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"\nspec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\""},
    {"dns config", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'dnsPolicy':'None','dnsConfig':{'nameservers':['1.2.3.4','1.2.3','::1','fe80::1%eth0'],'searches':['Bad_Domain','a.','.'],'options':[{'name':''}]}}}",
     "spec.template.spec.dnsConfig.nameservers: Invalid value: []string{\"1.2.3.4\", \"1.2.3\", \"::1\", \"fe80::1%eth0\"}: must not have more than 3 nameservers\nspec.template.spec.dnsConfig.nameservers[1]: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.dnsConfig.nameservers[3]: Invalid value: \"fe80::1%eth0\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.dnsConfig.searches[0]: Invalid value: \"Bad_Domain\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.dnsConfig.searches[2]: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.dnsConfig.options[0]: Required value: must not be empty"},
    {"dns None without config", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'dnsPolicy':'None'}}",
     "spec.template.spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"},
    {"names and numbers", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'nodeName':'Bad_Node','serviceAccount':'Bad_SA','hostname':'Host','subdomain':'a.b','priorityClassName':'P','runtimeClassName':'','preemptionPolicy':'Always','activeDeadlineSeconds':0,'terminationGracePeriodSeconds':null}}",
     "spec.template.spec.serviceAccountName: Invalid value: \"Bad_SA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.nodeName: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive\nspec.template.spec.hostname: Invalid value: \"Host\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.subdomain: Invalid value: \"a.b\": must not contain dots\nspec.template.spec.priorityClassName: Invalid value: \"P\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.runtimeClassName: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.preemptionPolicy: Unsupported value: \"Always\": supported values: \"PreemptLowerPriority\", \"Never\""},
    {"gates, aliases, node selector", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'readinessGates':[{'conditionType':'a b'}],'schedulingGates':[{'name':'g'},{'name':'g'},{'name':'-x'}],'hostAliases':[{'ip':'256.1.1.1','hostnames':['Bad_Host']}],'nodeSelector':{'a b':'c'}}}",
     "spec.template.spec.nodeSelector: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.readinessGates[0].conditionType: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.schedulingGates[1]: Duplicate value: \"g\"\nspec.template.spec.schedulingGates[2]: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.hostAliases[0].ip: Invalid value: \"256.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[0].hostnames[0]: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
    {"os unknown", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'os':{'name':'darwin'}}}",
     "spec.template.spec.os: Unsupported value: \"darwin\": supported values: \"linux\", \"windows\""},
    {"linux Pod with windows options", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'windowsOptions':{}}}],'os':{'name':'linux'},'securityContext':{'windowsOptions':{}}}}",
     "spec.template.spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod\nspec.template.spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod"},
    {"windows Pod", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'privileged':false,'capabilities':{},'runAsGroup':1}}],'os':{'name':'windows'},'hostPID':true,'hostUsers':true,'shareProcessNamespace':false,'securityContext':{'runAsUser':1,'supplementalGroups':[],'seccompProfile':{'type':'RuntimeDefault'},'sysctls':[{'name':'a'}]}}}",
     "spec.template.spec.hostUsers: Forbidden: cannot be set for a windows pod\nspec.template.spec.hostPID: Forbidden: cannot be set for a windows pod\nspec.template.spec.securityContext.seccompProfile: Forbidden: cannot be set for a windows pod\nspec.template.spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod\nspec.template.spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod\nspec.template.spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod\nspec.template.spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod\nspec.template.spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod\nspec.template.spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod\nspec.template.spec.containers[0].securityContext.runAsGroup: Forbidden: cannot be set for a windows pod"},
    {"host process", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'windowsOptions':{'hostProcess':false}}},{'name':'b','image':'nginx'}],'securityContext':{'windowsOptions':{'hostProcess':true}}}}",
     "spec.template.spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true\nspec.template.spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers\nspec.template.spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers"},
};

static const struct pv_case scheduling_cases[] = {
    {"tolerations", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'tolerations':[{'operator':'Equal'},{'key':'k','operator':'Exists','value':'v','effect':'NoSchedule','tolerationSeconds':5},{'key':'a b','operator':'In'},{'key':'k','value':'-a','effect':'Never'}]}}",
     "spec.template.spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"\nspec.template.spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set\nspec.template.spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'\nspec.template.spec.tolerations[2].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.tolerations[2].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"\nspec.template.spec.tolerations[3].operator: Invalid value: \"-a\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\nspec.template.spec.tolerations[3].effect: Unsupported value: \"Never\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
    {"node affinity", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':[{'matchExpressions':[{'key':'k','operator':'In'},{'key':'k','operator':'Exists','values':['a']},{'key':'k','operator':'Gt','values':['1','2']},{'key':'a b','operator':'Bogus','values':['-x']}],'matchFields':[{'key':'spec.x','operator':'Exists'},{'key':'metadata.name','operator':'In','values':['Bad_Node']}]}]},'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':0,'preference':{}}]}}}}",
     "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: Invalid value: \"Bogus\": not a valid selector operator\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: \"spec.x\": not a valid field selector key\nspec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].values[0]: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\nspec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"},
    {"no node selector terms", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':[]}}}}}",
     "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"},
    {"pod affinity terms", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'affinity':{'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'topologyKey':'','namespaces':['Bad_NS'],'labelSelector':{'matchLabels':{'app':'x'},'matchExpressions':[{'key':'app','operator':'In','values':['-bad']},{'key':'tier','operator':'Exists'}]},'matchLabelKeys':['tier','app'],'mismatchLabelKeys':['app']}]},'podAntiAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':101},{'weight':1,'podAffinityTerm':{'topologyKey':'k','matchLabelKeys':['a']}}]}}}}",
     "spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\nspec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][1]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector\nspec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[1]: Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys\nspec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty\nspec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty\nspec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100\nspec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty\nspec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: \"\": name part must be non-empty\nspec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"},
    {"topology spread", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'topologySpreadConstraints':[{'maxSkew':0,'topologyKey':'','whenUnsatisfiable':'X','minDomains':0,'nodeAffinityPolicy':'Always','matchLabelKeys':['app']},{'maxSkew':1,'topologyKey':'z','whenUnsatisfiable':'DoNotSchedule','labelSelector':{'matchLabels':{'app':'a'}},'matchLabelKeys':['app','a b']},{'maxSkew':1,'topologyKey':'z','whenUnsatisfiable':'DoNotSchedule'}]}}",
     "spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero\nspec.template.spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty\nspec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"X\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"\nspec.template.spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero\nspec.template.spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not X\nspec.template.spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\"\nspec.template.spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set\nspec.template.spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{z, DoNotSchedule}\"\nspec.template.spec.topologySpreadConstraints[1].matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector\nspec.template.spec.topologySpreadConstraints[1].matchLabelKeys[1]: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
};

static const struct pv_case annotations_cases[] = {
    {"labels and annotations", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}]},'metadata':{'labels':{'a b':'-c'},'annotations':{'A/b/c':'x','pod.beta.kubernetes.io/init-containers':'dropped'}}}",
     "spec.template.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\nspec.template.labels: Invalid value: \"-c\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\nspec.template.annotations: Invalid value: \"A/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
    {"mirror and tolerations", false,
     "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx\"}]},\"metadata\":{\"annotations\":{\"kubernetes.io/config.mirror\":\"m\",\"scheduler.alpha.kubernetes.io/tolerations\":\"[{\\\"key\\\":\\\"a b\\\",\\\"OPERATOR\\\":\\\"Equal\\\"}]\"}}}",
     "spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: \"m\": must set spec.nodeName if mirror pod annotation is set\nspec.template.annotations.scheduler.alpha.kubernetes.io/tolerations[0].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
    {"tolerations annotation, syntax", false,
     "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx\"}]},\"metadata\":{\"annotations\":{\"scheduler.alpha.kubernetes.io/tolerations\":\"[{\\\"key\\\":\\\"a\\\"\"}}}",
     "spec.template.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": unexpected end of JSON input"},
    {"tolerations annotation, types", false,
     "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx\"}]},\"metadata\":{\"annotations\":{\"scheduler.alpha.kubernetes.io/tolerations\":\"[{\\\"key\\\":\\\"a\\\",\\\"tolerationSeconds\\\":1.5,\\\"effect\\\":5}]\"}}}",
     "spec.template.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal number 1.5 into Go struct field Toleration.TolerationSeconds of type int64"},
    {"tolerations annotation, not a list", false,
     "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx\"}]},\"metadata\":{\"annotations\":{\"scheduler.alpha.kubernetes.io/tolerations\":\"{\\\"key\\\":\\\"a\\\"}\"}}}",
     "spec.template.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal object into Go value of type []core.Toleration"},
    {"seccomp annotations", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','securityContext':{'seccompProfile':{'type':'RuntimeDefault'}}}],'securityContext':{'seccompProfile':{'type':'Localhost','localhostProfile':'b'}}},'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'localhost/a','container.seccomp.security.alpha.kubernetes.io/main':'unconfined','container.seccomp.security.alpha.kubernetes.io/x':'bogus'}}}",
     "spec.template.annotations.container.seccomp.security.alpha.kubernetes.io/x: Invalid value: \"bogus\": must be a valid seccomp profile\nspec.template.spec.securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match\nspec.template.spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match"},
    {"apparmor annotations", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'},{'name':'b','image':'nginx','securityContext':{'appArmorProfile':{'type':'RuntimeDefault'}}}],'securityContext':{'appArmorProfile':{'type':'Localhost','localhostProfile':'p'}}},'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/main':'localhost/q','container.apparmor.security.beta.kubernetes.io/b':'unconfined','container.apparmor.security.beta.kubernetes.io/none':'bogus'}}}",
     "spec.template.annotations[container.apparmor.security.beta.kubernetes.io/none]: Invalid value: \"none\": container not found\nspec.template.annotations[container.apparmor.security.beta.kubernetes.io/none]: Invalid value: \"bogus\": invalid AppArmor profile name: \"bogus\"\nspec.template.spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match\nspec.template.spec.containers[1].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match"},
};

static const struct pv_case printing_cases[] = {
    {"quantities as Go holds them", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resources':{'limits':{'example.com/a':'0.5','example.com/b':'1500m','example.com/c':'1.5Ki','example.com/d':'123456789012345678901.5','example.com/e':'0.0001','example.com/f':'-1.0001','example.com/g':'0.5Ki','example.com/h':'2.5e-1','pods':'100m'}}}]}}",
     "spec.template.spec.containers[0].resources.limits[pods]: Invalid value: pods: must be a standard resource for containers\nspec.template.spec.containers[0].resources.limits[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:100, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"100m\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/b]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1500m\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/h]: Invalid value: resource.Quantity{i:resource.int64Amount{value:25, scale:-2}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalExponent\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/a]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/d]: Invalid value: resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000010000)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/e]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer\nspec.template.spec.containers[0].resources.limits[example.com/f]: Invalid value: \"-1001m\": must be greater than or equal to 0\nspec.template.spec.containers[0].resources.limits[example.com/f]: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1001, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer"},
    {"IP addresses as netutils parses them", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx'}],'hostAliases':[{'ip':'10.0.0.1'},{'ip':'01.02.03.04'},{'ip':'::ffff:1.2.3.4'},{'ip':'1:2:3:4:5:6:7:8'},{'ip':'::1.2.3.4'},{'ip':'1::2::3'},{'ip':'1.2.3'},{'ip':'fe80::1%eth0'},{'ip':'1:2:3:4:5:6:1.2.3.4'},{'ip':'1:2:3:4:5:6:7:1.2.3.4'},{'ip':'::ffff:1.2.3.256'},{'ip':'::'},{'ip':':'},{'ip':'1:2:3:4:5:6:7:8:'},{'ip':'0x1.2.3.4'},{'ip':'1.2.3.4 '},{'ip':'12345::'}]}}",
     "spec.template.spec.hostAliases[5].ip: Invalid value: \"1::2::3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[6].ip: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[7].ip: Invalid value: \"fe80::1%eth0\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[9].ip: Invalid value: \"1:2:3:4:5:6:7:1.2.3.4\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[10].ip: Invalid value: \"::ffff:1.2.3.256\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[12].ip: Invalid value: \":\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[13].ip: Invalid value: \"1:2:3:4:5:6:7:8:\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[14].ip: Invalid value: \"0x1.2.3.4\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[15].ip: Invalid value: \"1.2.3.4 \": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\nspec.template.spec.hostAliases[16].ip: Invalid value: \"12345::\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
    {"unicode spaces are escaped", true,
     "{'spec':{'containers':[{'name':'a b　','image':'x'}]}}",
     "spec.template.spec.containers[0].name: Invalid value: \"a\\u00a0b\\u3000\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
    {"resource names print unquoted", true,
     "{'spec':{'containers':[{'name':'main','image':'nginx','resizePolicy':[{'resourceName':'gpu','restartPolicy':'NotRequired'},{'resourceName':'gpu','restartPolicy':'NotRequired'}]}]}}",
     "spec.template.spec.containers[0].resizePolicy: Unsupported value: gpu: supported values: \"cpu\", \"memory\"\nspec.template.spec.containers[0].resizePolicy[1]: Duplicate value: gpu"},
};

/* The errors of an aggregate (every error starts with the template's path, or "[]" for a static
 * Pod's resource claims) or of a row's expectation (one a line), one a line, sorted.
 * Returns: new string. */
static char *error_set(const char *agg)
{
    size_t n = 0, cap = 8;
    char **parts = malloc(cap * sizeof(*parts));
    char *s = strdup(agg ? agg : "");
    char *inner = s;
    size_t len = strlen(s);
    if (len > 1 && s[0] == '[' && s[len - 1] == ']' &&
        (strncmp(s, "[spec.template", 14) == 0 || strncmp(s, "[[]", 3) == 0)) {
        s[len - 1] = '\0';
        inner = s + 1;
    }
    char *start = inner;
    for (char *c = inner; *c; c++) {
        if (*c == '\n') { /* a row's expectation: one error a line */
            *c = '\0';
            if (n == cap)
                parts = realloc(parts, (cap *= 2) * sizeof(*parts));
            parts[n++] = start;
            start = c + 1;
        } else if (strncmp(c, ", spec.template", 15) == 0 || strncmp(c, ", []: ", 6) == 0) {
            *c = '\0';
            if (n == cap)
                parts = realloc(parts, (cap *= 2) * sizeof(*parts));
            parts[n++] = start;
            start = c + 2;
            c++;
        }
    }
    if (*start || n) {
        if (n == cap)
            parts = realloc(parts, (cap *= 2) * sizeof(*parts));
        parts[n++] = start;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(parts[j - 1], parts[j]) > 0; j--) {
            char *t = parts[j];
            parts[j] = parts[j - 1];
            parts[j - 1] = t;
        }
    struct wh_buf b;
    wh_buf_init(&b, 1u << 24);
    for (size_t i = 0; i < n; i++)
        CHECK(wh_buf_printf(&b, "%s%s", i ? "\n" : "", parts[i]) == WH_OK);
    char *out = wh_buf_take(&b, NULL);
    free(parts);
    free(s);
    return out;
}

/* The template validated as a handler validates it. Returns: the aggregate (new) or NULL. */
static char *validate(const char *text, bool jq)
{
    json_t *t = jq ? wh_test_jq(text) : wh_test_json(text);
    if (!json_is_object(json_object_get(t, "spec")))
        json_object_set_new(t, "spec", json_object());
    wh_k8s_default_pod_spec_for_validation(json_object_get(t, "spec"), false);
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_pod_template_spec(&l, t, "spec.template");
    char *agg = wh_ferrs_aggregate(&l);
    wh_ferrs_fini(&l);
    json_decref(t);
    return agg;
}

static void run_table(const struct pv_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *agg = validate(cases[i].tmpl, cases[i].jq);
        char *got = error_set(agg), *want = error_set(cases[i].want);
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "row \"%s\":\n  want: %s\n  got:  %s\n", cases[i].name, want, got);
            wh_test_failed_checks++;
        }
        free(got);
        free(want);
        free(agg);
    }
}

#define RUN(cases) run_table(cases, sizeof(cases) / sizeof(cases[0]))

TEST(podvalidation_volumes)
{
    RUN(volumes_cases);
}

TEST(podvalidation_containers)
{
    RUN(containers_cases);
}

TEST(podvalidation_probes)
{
    RUN(probes_cases);
}

TEST(podvalidation_resources)
{
    RUN(resources_cases);
}

TEST(podvalidation_security)
{
    RUN(security_cases);
}

TEST(podvalidation_pod_fields)
{
    RUN(pod_cases);
}

TEST(podvalidation_scheduling)
{
    RUN(scheduling_cases);
}

TEST(podvalidation_annotations)
{
    RUN(annotations_cases);
}

TEST(podvalidation_printing)
{
    RUN(printing_cases);
}

/* --- what the tables cannot reach ----------------------------------------------------------- */

static char *spec_errors(const char *spec_jq, const char *meta_jq, const char *path)
{
    json_t *spec = wh_test_jq(spec_jq), *meta = meta_jq ? wh_test_jq(meta_jq) : NULL;
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_pod_spec_at(&l, spec, meta, path);
    char *agg = wh_ferrs_aggregate(&l);
    wh_ferrs_fini(&l);
    json_decref(spec);
    json_decref(meta);
    return agg;
}

TEST(podvalidation_pod_metadata)
{
    static const char *base = "{'containers':[{'name':'c','image':'i','imagePullPolicy':'Always',"
                              "'terminationMessagePolicy':'File'}],'restartPolicy':'Always',"
                              "'dnsPolicy':'ClusterFirst','terminationGracePeriodSeconds':30,";
    char spec[1024];
    /* the Pod's name makes the ephemeral volumes' claim names: they must be valid, and no
     * other volume may claim one of them */
    snprintf(spec, sizeof(spec),
             "%s'volumes':[{'name':'e','ephemeral':{'volumeClaimTemplate':{'spec':{"
             "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}}},"
             "{'name':'p','persistentVolumeClaim':{'claimName':'Pod-e'}}]}",
             base);
    char *agg = spec_errors(spec, "{'name':'Pod'}", "spec.subsets[0].patch");
    CHECK_EQ_STR(agg, "[spec.subsets[0].patch.volumes[0].name: Invalid value: \"e\": PVC "
                      "name \"Pod-e\": a lowercase RFC 1123 subdomain must consist of lower case "
                      "alphanumeric characters, '-' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'example.com', regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
                      "spec.subsets[0].patch.volumes[1].persistentVolumeClaim.claimName: Invalid "
                      "value: \"Pod-e\": must not reference a PVC that gets created for an "
                      "ephemeral volume]");
    free(agg);
    /* without metadata (a template) neither is checked */
    agg = spec_errors(spec, NULL, "spec");
    CHECK(agg == NULL);
    free(agg);
    /* a mirror Pod has no resource claims, reported at the empty path */
    snprintf(spec, sizeof(spec), "%s'resourceClaims':[{'name':'a','resourceClaimName':'x'}]}",
             base);
    agg = spec_errors(spec, "{'annotations':{'kubernetes.io/config.mirror':'m'}}", "spec");
    CHECK_EQ_STR(agg, "[]: Forbidden: static pods do not support resource claims");
    free(agg);
    /* SidecarSet's fake Pod: its name, and the Pod-only check of the images */
    snprintf(spec, sizeof(spec),
             "{'containers':[{'name':'c','image':' i','imagePullPolicy':'Always',"
             "'terminationMessagePolicy':'File'}],'restartPolicy':'Always','dnsPolicy':"
             "'ClusterFirst','terminationGracePeriodSeconds':30,'serviceAccountName':'default',"
             "'volumes':[{'name':'e','ephemeral':{}}]}");
    json_t *fake = wh_test_jq(spec);
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_pod_spec(&l, fake);
    agg = wh_ferrs_aggregate(&l);
    CHECK_EQ_STR(agg, "[spec.volumes[0].ephemeral.volumeClaimTemplate: Required value, "
                      "spec.containers[0].image: Invalid value: \" i\": must not have leading or "
                      "trailing whitespace]");
    free(agg);
    wh_ferrs_fini(&l);
    json_decref(fake);
}

TEST(podvalidation_claim_templates)
{
    json_t *claim = wh_test_jq("{'metadata':{'uid':'u','generation':0,'ownerReferences':[]},"
                               "'spec':{'accessModes':['ReadWriteOnce'],"
                               "'dataSource':{'kind':'PersistentVolumeClaim','name':'a'},"
                               "'dataSourceRef':{'kind':'PersistentVolumeClaim','name':'b'}}}");
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_pvc_template(&l, claim, "spec.volumeClaimTemplates[0]");
    char *agg = wh_ferrs_aggregate(&l);
    /* every ObjectMeta field but labels and annotations "cannot be set", by its Go name with the
     * first letter lowered (UID: uID), a set empty list included */
    CHECK_EQ_STR(agg, "[spec.volumeClaimTemplates[0].metadata.uID: Forbidden: cannot be set, "
                      "spec.volumeClaimTemplates[0].metadata.ownerReferences: Forbidden: cannot "
                      "be set, spec.volumeClaimTemplates[0].spec.resources[storage]: Required "
                      "value, spec.volumeClaimTemplates[0].spec: Invalid value: "
                      "field.Path{name:\"dataSource\", index:\"\", "
                      "parent:(*field.Path)(0xc000010000)}: must match dataSourceRef]");
    free(agg);
    wh_ferrs_fini(&l);
    json_decref(claim);
}

TEST(podvalidation_helpers)
{
    /* strconv.Quote keeps what strconv.IsPrint accepts, and escapes the rest (checked with Go) */
    static const char *const quotes[][2] = {
        {"a\u00a0b", "\"a\\u00a0b\""},           {"\u00e9\u200b", "\"\u00e9\\u200b\""},
        {"\U0001F600\ue000", "\"\U0001F600\\ue000\""}, {"\U000e0001x", "\"\\U000e0001x\""},
        {"\u0378", "\"\\u0378\""},               {"\u2028", "\"\\u2028\""},
        {"\u00ad", "\"\\u00ad\""},               {"ab\x7f", "\"ab\\x7f\""},
    };
    for (size_t i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++) {
        char *q = wh_go_quote(quotes[i][0]);
        CHECK_EQ_STR(q, quotes[i][1]);
        free(q);
    }
    /* maskTrailingDash drops the last two bytes for one 'a' */
    struct wh_vmsgs m = {0};
    wh_name_is_dns_subdomain("x-.-", true, &m); /* "x-a" */
    CHECK_EQ_INT(m.n, 0);
    wh_name_is_dns_subdomain("a.b-", true, &m); /* "a.a" */
    CHECK_EQ_INT(m.n, 0);
    wh_name_is_dns_subdomain("-", true, &m);
    CHECK_EQ_INT(m.n, 1);
    /* the core ValidateObjectMeta adds the finalizers' standard names */
    json_t *meta = wh_test_jq("{'name':'a','namespace':'n','finalizers':['x','example.com/y','orphan']}");
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_kube_object_meta(&l, meta, true, wh_name_is_dns_subdomain, "metadata");
    char *agg = wh_ferrs_aggregate(&l);
    CHECK_EQ_STR(agg, "metadata.finalizers[0]: Invalid value: \"x\": name is neither a standard "
                      "finalizer name nor is it fully qualified");
    free(agg);
    wh_ferrs_fini(&l);
    json_decref(meta);
    /* label selectors with and without invalid values */
    json_t *sel = wh_test_jq("{'matchExpressions':[{'key':'k','operator':'In','values':['-a']}]}");
    wh_ferrs_init(&l);
    wh_validate_label_selector_opts(&l, sel, true, "s");
    CHECK_EQ_INT(l.n, 0);
    wh_validate_label_selector_opts(&l, sel, false, "s");
    CHECK_EQ_INT(l.n, 1);
    wh_ferrs_fini(&l);
    json_decref(sel);
    CHECK(wh_ip_sloppy_valid("001.2.3.4") && wh_ip_sloppy_valid("::ffff:10.1.1.1") &&
          !wh_ip_sloppy_valid("1.2.3.4%x") && !wh_ip_sloppy_valid(""));
}

/* The errors of t (not defaulted) validated as written or, as_written false, as a defaulted
 * template holds its quantities. Returns: the aggregate (new) or NULL. */
static char *template_errors(const json_t *t, bool as_written)
{
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    if (as_written)
        wh_validate_pod_template_spec_as_written(&l, t, "spec.template");
    else
        wh_validate_pod_template_spec(&l, t, "spec.template");
    char *agg = wh_ferrs_aggregate(&l);
    wh_ferrs_fini(&l);
    return agg;
}

/* A template upstream validates without defaulting it (AdvancedCronJob's) reads quantities as
 * written: 1200u > 1100u is refused, in upstream's words (asked of kwh-oracle serve); the same
 * template read as SetDefaults_ResourceList leaves it has both at 2m, and passes. */
TEST(podvalidation_as_written_quantities)
{
    json_t *t = wh_test_jq(
        "{'spec':{'containers':[{'name':'main','image':'busybox','imagePullPolicy':'IfNotPresent',"
        "'terminationMessagePolicy':'File','resources':{'requests':{'cpu':'1200u'},"
        "'limits':{'cpu':'1100u'}}}],'restartPolicy':'OnFailure',"
        "'terminationGracePeriodSeconds':30,'dnsPolicy':'ClusterFirst'}}");
    char *agg = template_errors(t, true);
    CHECK_EQ_STR(agg, "spec.template.spec.containers[0].resources.requests: Invalid value: "
                      "\"1200u\": must be less than or equal to cpu limit of 1100u");
    free(agg);
    agg = template_errors(t, false);
    CHECK(agg == NULL);
    free(agg);
    json_decref(t);
}
