import subprocess, sys
def head(path):
    return subprocess.run(['git','show','HEAD:'+path],capture_output=True,text=True,check=True).stdout
def stage(path, content):
    sha=subprocess.run(['git','hash-object','-w','--stdin'],input=content,capture_output=True,text=True,check=True).stdout.strip()
    subprocess.run(['git','update-index','--cacheinfo','100644,%s,%s'%(sha,path)],check=True)
def rep(s, old, new):
    assert old in s, old[:80]
    return s.replace(old,new,1)
