#!/usr/bin/python3
"""Exports a YOLOv8-like detector (random weights, seed 0, opset 17, 320x320): C2f blocks (Conv-BN-SiLU, Split,
bottlenecks, Concat), SPPF (three chained 5x5 MaxPools), nearest 2x upsampling and a head whose boxes and sigmoid
scores are concatenated, for bench/quant_breadth/run.sh. Needs Debian's python3-torch.

    /usr/bin/python3 bench/quant_breadth/make_yolo_like.py OUT.onnx"""
import sys

import torch, torch.nn as nn
class Conv(nn.Module):
    def __init__(s, c1, c2, k=1, st=1):
        super().__init__(); s.c=nn.Conv2d(c1,c2,k,st,k//2,bias=False); s.bn=nn.BatchNorm2d(c2); s.act=nn.SiLU()
    def forward(s,x): return s.act(s.bn(s.c(x)))
class Bottleneck(nn.Module):
    def __init__(s,c): super().__init__(); s.cv1=Conv(c,c,3); s.cv2=Conv(c,c,3)
    def forward(s,x): return x+s.cv2(s.cv1(x))
class C2f(nn.Module):
    def __init__(s,c1,c2,n=1):
        super().__init__(); s.c=c2//2; s.cv1=Conv(c1,2*s.c,1); s.cv2=Conv((2+n)*s.c,c2,1); s.m=nn.ModuleList(Bottleneck(s.c) for _ in range(n))
    def forward(s,x):
        y=list(s.cv1(x).split((s.c,s.c),1)); y.extend(m(y[-1]) for m in s.m); return s.cv2(torch.cat(y,1))
class SPPF(nn.Module):
    def __init__(s,c1,c2,k=5):
        super().__init__(); c_=c1//2; s.cv1=Conv(c1,c_); s.cv2=Conv(c_*4,c2); s.m=nn.MaxPool2d(k,1,k//2)
    def forward(s,x):
        x=s.cv1(x); y1=s.m(x); y2=s.m(y1); return s.cv2(torch.cat((x,y1,y2,s.m(y2)),1))
class Net(nn.Module):
    def __init__(s):
        super().__init__()
        s.b=nn.Sequential(Conv(3,16,3,2),Conv(16,32,3,2),C2f(32,32,1),Conv(32,64,3,2),C2f(64,64,2))
        s.p5=nn.Sequential(Conv(64,128,3,2),C2f(128,128,1),SPPF(128,128))
        s.up=nn.Upsample(scale_factor=2,mode='nearest'); s.h=C2f(192,64,1); s.out=nn.Conv2d(64,84,1)
    def forward(s,x):
        p4=s.b(x); p5=s.p5(p4); h=s.h(torch.cat([s.up(p5),p4],1)); o=s.out(h); return torch.cat([o[:,:4], o[:,4:].sigmoid()],1)
torch.manual_seed(0); m=Net().eval()
for mod in m.modules():
    if isinstance(mod, nn.BatchNorm2d): mod.running_var.uniform_(0.5,2); mod.running_mean.uniform_(-0.2,0.2)
torch.onnx.export(m, torch.randn(1,3,320,320), sys.argv[1], opset_version=17, input_names=['images'], output_names=['out'])
