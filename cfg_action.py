import sys; sys.path.insert(0,'/tmp/mine')
from apply import rep
def edits(s):
    s=rep(s,'''	if in.Mode == ModePin {
		return r.pin(ctx, target)
	}
	return r.check(ctx, target)''','''	if in.Config != "" {
		return r.runConfig(ctx, target)
	}
	if in.Mode == ModePin {
		return r.pin(ctx, target)
	}
	return r.check(ctx, target)''')
    s=rep(s,'''	}); err != nil {
		return err
	}
	if _, err := ResolveFile(r.workspace, r.workDir, "sarif", r.sarifAbs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.sarifAbs), 0o755); err != nil {
		return fmt.Errorf("create SARIF directory: %w", err)
	}
	if err := lock.WriteAtomic(r.sarifAbs, buf.Bytes()); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}''','''	}); err != nil {
		return err
	}
	return r.writeSARIFBytes(buf.Bytes())
}''')
    return s
p='/work/main/internal/action/action.go'
src=open(p).read(); out=edits(src); open(p,'w').write(out)
